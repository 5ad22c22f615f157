package cluster

import (
	"bytes"
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kbgp.io/kbgp/internal/kubectlbgp"
	"kbgp.io/kbgp/test/cluster/kcluster"
	"kbgp.io/kbgp/test/e2e/netlab"
)

// kubectlBGP runs the plugin's command tree with the administrator's kubeconfig.
func kubectlBGP(c *kcluster.Cluster, args ...string) (string, error) {
	cmd := kubectlbgp.NewRootCommand()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(append(args, "--kubeconfig", c.Kubeconfig))
	err := cmd.Execute()
	return out.String(), err
}

// 7. `kubectl bgp routes NODE` reaches the node's agent through the API server's pod
// proxy: the IPv4 prefixes it prints for the ToR are those the ToR holds from the node;
// a caller allowed only to list pods and get pods/proxy in kbgp-system reads the same,
// one allowed only to list pods is refused with the right named.
func routesThroughPodProxy(t *testing.T, c *kcluster.Cluster) {
	node := c.Nodes[0]
	ctx := context.Background()
	for name, rules := range map[string][]rbacv1.PolicyRule{
		"routes-viewer": {{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"list"}},
			{APIGroups: []string{""}, Resources: []string{"pods/proxy"}, Verbs: []string{"get"}}},
		"pod-lister": {{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"list"}}},
	} {
		if _, err := c.Kube.RbacV1().Roles("kbgp-system").Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Kube.RbacV1().RoleBindings("kbgp-system").Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: name}}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = c.Kube.RbacV1().RoleBindings("kbgp-system").Delete(context.Background(), name, metav1.DeleteOptions{})
			_ = c.Kube.RbacV1().Roles("kbgp-system").Delete(context.Background(), name, metav1.DeleteOptions{})
		})
	}

	var printed []string
	if err := netlab.Poll(time.Minute, 2*time.Second, func() (bool, string) {
		out, err := kubectlBGP(c, "routes", node.Name)
		if err != nil {
			return false, err.Error()
		}
		printed = torPrefixes(out)
		held := torHolds(t, c, node.IPv4)
		return len(held) > 0 && slices.Equal(printed, held), "kubectl bgp routes printed " + strings.Join(printed, " ") + "; the ToR holds " + strings.Join(held, " ") + "\n" + out
	}); err != nil {
		t.Fatal(err)
	}
	t.Logf("kubectl bgp routes %s (admin) through the pod proxy: %v", node.Name, printed)

	out, err := kubectlBGP(c, "routes", node.Name, "--as", "routes-viewer")
	if err != nil || !slices.Equal(torPrefixes(out), printed) {
		t.Errorf("as routes-viewer: %v\n%s", err, out)
	}
	if _, err := kubectlBGP(c, "routes", node.Name, "--as", "pod-lister"); err == nil || !strings.Contains(err.Error(), "get on pods/proxy") {
		t.Errorf("as pod-lister (no pods/proxy): %v, want a refusal naming get on pods/proxy", err)
	}
}

// torPrefixes are the IPv4 prefixes `kubectl bgp routes` printed for the peer tor.
func torPrefixes(out string) []string {
	var got []string
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) == 6 && f[2] == "tor" && !strings.Contains(f[3], ":") {
			got = append(got, f[3])
		}
	}
	slices.Sort(got)
	return got
}

// torHolds are the IPv4 prefixes the ToR holds a path for from addr.
func torHolds(t *testing.T, c *kcluster.Cluster, addr string) []string {
	t.Helper()
	routes, err := c.Tor.Routes("ipv4")
	if err != nil {
		t.Fatal(err)
	}
	held := map[string]bool{}
	for prefix, r := range routes {
		for _, p := range r.Paths {
			if p.PeerID == addr {
				held[prefix] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(held))
}
