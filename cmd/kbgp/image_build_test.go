package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImageBuildLinksNoEnvtest: the kbgp binary (the image's) links no envtest. envtest's package init creates
// $HOME/.cache/kubebuilder-envtest or $TMPDIR/kubebuilder-envtest and panics when it
// cannot, which on the manifests' read-only root filesystem stopped the operator and
// the agent before main (seen in test/cluster: "panic: mkdir /tmp: permission denied").
func TestImageBuildLinksNoEnvtest(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.HasPrefix(pkg, "sigs.k8s.io/controller-runtime/pkg/envtest") ||
			strings.HasPrefix(pkg, "sigs.k8s.io/controller-runtime/pkg/internal/testing") {
			t.Errorf("the image's kbgp links %s", pkg)
		}
	}
}
