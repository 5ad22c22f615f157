package integration

import (
	"strings"
	"testing"
)

// TestManifestsApply applies config/default — namespace, CRDs, RBAC, the operator
// Deployment, the agent DaemonSet and the admission policy — to the real API server
// with a server-side dry run, so schema errors fail here instead of in a cluster.
func TestManifestsApply(t *testing.T) {
	ensureNamespace(t, "kbgp-system")
	out := newKubectl(t, "manifests").run("apply", "--server-side", "--force-conflicts", "--dry-run=server", "-k", configDir("default"))
	for _, want := range []string{
		"namespace/kbgp-system serverside-applied (server dry run)",
		"customresourcedefinition.apiextensions.k8s.io/bgpnodeconfigs.kbgp.io serverside-applied (server dry run)",
		"clusterrole.rbac.authorization.k8s.io/kbgp-operator serverside-applied (server dry run)",
		"clusterrole.rbac.authorization.k8s.io/kbgp-agent serverside-applied (server dry run)",
		"role.rbac.authorization.k8s.io/kbgp-agent serverside-applied (server dry run)",
		"rolebinding.rbac.authorization.k8s.io/kbgp-agent serverside-applied (server dry run)",
		"deployment.apps/kbgp-operator serverside-applied (server dry run)",
		"daemonset.apps/kbgp-agent serverside-applied (server dry run)",
		"validatingadmissionpolicy.admissionregistration.k8s.io/kbgp-agent-own-node serverside-applied (server dry run)",
		"validatingadmissionpolicybinding.admissionregistration.k8s.io/kbgp-agent-own-node serverside-applied (server dry run)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("apply output lacks %q:\n%s", want, out)
		}
	}
}
