package e2e

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// kubectlBGP runs the kubectl plugin with an administrator's kubeconfig.
func kubectlBGP(t *testing.T, args ...string) string {
	t.Helper()
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := server.WriteKubeconfig(kubeconfig, "e2e-kubectl-bgp"); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(kubectlBGPBinary, append(args, "--kubeconfig", kubeconfig)...).CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl bgp %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// pluginStates parses `kubectl bgp peers` into peer name → STATE.
func pluginStates(t *testing.T, out string) map[string]string {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	header := strings.Fields(lines[0])
	col := map[string]int{}
	for i, h := range header {
		col[h] = i
	}
	states := map[string]string{}
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		if len(f) == len(header) {
			states[f[col["PEER"]]] = f[col["STATE"]]
		}
	}
	return states
}

// nodeEvents returns "Reason: message" for the events on the node's BGPNodeConfig.
func nodeEvents(t *testing.T, node string) []string {
	t.Helper()
	out, err := server.Events(context.Background(), "BGPNodeConfig", node)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func isReady(st kbgpv1.BGPNodeConfigStatus) bool {
	return meta.IsStatusConditionTrue(st.Conditions, "Ready")
}
