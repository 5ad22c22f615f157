package integration

import (
	"os"
	"path/filepath"
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

// TestPodNetworkComponentApplies renders config/default with the config/podnetwork
// component, as an overlay would, and applies it with a server-side dry run: the agent
// gets the pod network's flags, NET_ADMIN and the CNI directories, and the init
// container installs the plugin.
func TestPodNetworkComponentApplies(t *testing.T) {
	rendered := applyWithComponent(t, "podnetwork")
	for _, want := range []string{"- --pod-network", "- --cluster-pod-cidrs=10.244.0.0/16", "- NET_ADMIN", "name: install-cni", "- install-cni", "path: /etc/cni/net.d", "path: /opt/cni/bin", "- --state-dir=/var/lib/kbgp"} {
		if !strings.Contains(rendered, want) {
			t.Errorf("the rendered install lacks %q", want)
		}
	}
}

// TestMetricsSecureComponentApplies: the grants the secure metrics endpoint needs
// (TokenReview, SubjectAccessReview) come only with the config/metrics-secure
// component, which sets --metrics-secure too; the plain install has neither.
func TestMetricsSecureComponentApplies(t *testing.T) {
	plain := newKubectl(t, "manifests").run("kustomize", configDir("default"))
	for _, absent := range []string{"tokenreviews", "subjectaccessreviews", "--metrics-secure"} {
		if strings.Contains(plain, absent) {
			t.Errorf("config/default contains %q", absent)
		}
	}
	rendered := applyWithComponent(t, "metrics-secure")
	for _, want := range []string{"- --metrics-secure", "- tokenreviews", "- subjectaccessreviews", "name: kbgp-agent-metrics-auth"} {
		if !strings.Contains(rendered, want) {
			t.Errorf("the rendered install lacks %q", want)
		}
	}
}

// applyWithComponent renders config/default with one component, as an overlay would,
// applies it with a server-side dry run and returns the rendered manifests.
func applyWithComponent(t *testing.T, component string) string {
	t.Helper()
	ensureNamespace(t, "kbgp-system")
	overlay := t.TempDir()
	rel := func(dir string) string {
		r, err := filepath.Rel(overlay, configDir(dir))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	// kustomize takes relative paths only.
	kustomization := "resources: [" + rel("default") + "]\ncomponents: [" + rel(component) + "]\n"
	if err := os.WriteFile(filepath.Join(overlay, "kustomization.yaml"), []byte(kustomization), 0o644); err != nil {
		t.Fatal(err)
	}
	k := newKubectl(t, "manifests")
	rendered := k.run("kustomize", overlay)
	out := k.run("apply", "--server-side", "--force-conflicts", "--dry-run=server", "-k", overlay)
	if !strings.Contains(out, "daemonset.apps/kbgp-agent serverside-applied (server dry run)") {
		t.Errorf("apply output:\n%s", out)
	}
	return rendered
}
