package e2e

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

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
	list := &corev1.EventList{}
	if err := server.Client.List(context.Background(), list, client.InNamespace("default")); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range list.Items {
		if e.InvolvedObject.Kind == "BGPNodeConfig" && e.InvolvedObject.Name == node {
			out = append(out, e.Reason+": "+e.Message)
		}
	}
	return out
}

func isReady(st kbgpv1.BGPNodeConfigStatus) bool {
	return meta.IsStatusConditionTrue(st.Conditions, "Ready")
}
