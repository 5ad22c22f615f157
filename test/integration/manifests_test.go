package integration

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestManifestsApply renders config/default with kustomize and applies every object to
// the real API server with a server-side dry run, so schema errors in the Deployment,
// RBAC or CRDs fail here instead of in a cluster.
func TestManifestsApply(t *testing.T) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "kbgp-system"}}
	if err := server.Client.Create(context.Background(), ns); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := server.WriteKubeconfig(kubeconfig, "manifests"); err != nil {
		t.Fatal(err)
	}
	render := exec.Command(server.Kubectl(), "kustomize", filepath.Join(server.RepoRoot, "config", "default"))
	manifests, err := render.Output()
	if err != nil {
		t.Fatalf("kustomize config/default: %v", err)
	}
	apply := exec.Command(server.Kubectl(), "--kubeconfig", kubeconfig, "apply", "--server-side",
		"--force-conflicts", "--dry-run=server", "-f", "-")
	apply.Stdin = strings.NewReader(string(manifests))
	out, err := apply.CombinedOutput()
	if err != nil {
		t.Fatalf("server-side dry run refused the manifests: %v\n%s", err, out)
	}
	for _, want := range []string{
		"deployment.apps/kbgp-operator serverside-applied (server dry run)",
		"clusterrole.rbac.authorization.k8s.io/kbgp-operator serverside-applied (server dry run)",
		"clusterrole.rbac.authorization.k8s.io/kbgp-agent serverside-applied (server dry run)",
		"role.rbac.authorization.k8s.io/kbgp-agent serverside-applied (server dry run)",
		"rolebinding.rbac.authorization.k8s.io/kbgp-agent serverside-applied (server dry run)",
		"customresourcedefinition.apiextensions.k8s.io/bgpnodeconfigs.kbgp.io serverside-applied (server dry run)",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("apply output lacks %q:\n%s", want, out)
		}
	}
}
