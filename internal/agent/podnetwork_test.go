package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/agent"
	"kbgp.io/kbgp/internal/bgp/bgpfake"
	"kbgp.io/kbgp/internal/podnet/controller"
	"kbgp.io/kbgp/internal/testing/wait"
)

// TestPodNetworkConfiguration: with --pod-network the agent writes the node's CNI
// configuration as soon as the Node has pod CIDRs, before any BGP configuration
// exists; reports it in the node's status once there is a BGPNodeConfig; and keeps the
// last good configuration when a Node (re-created under the same name) brings a bad
// CIDR. A Node's pod CIDRs are set once (the API server refuses any other change), so
// the changes here are the ones a cluster can make.
func TestPodNetworkConfiguration(t *testing.T) {
	ensureNamespace(t)
	const name = "podnet-1"
	confDir := t.TempDir()
	path := filepath.Join(confDir, "10-kbgp.conflist")
	create(t, testNode(name))
	runAgentOpts(t, server.Config, agent.Options{NodeName: name, StatusInterval: 200 * time.Millisecond, Routers: &bgpfake.Factory{},
		PodNetwork: &controller.Config{CNIConfDir: confDir, Bridge: "cbr0", MTU: 1400, CNIStateDir: "/var/lib/kbgp/cni"}})

	fileHolds := func(what ...string) func() bool {
		return func() bool {
			b, err := os.ReadFile(path)
			for _, w := range what {
				if err != nil || !strings.Contains(string(b), w) {
					return false
				}
			}
			return true
		}
	}
	time.Sleep(time.Second)
	if _, err := os.Stat(path); err == nil {
		t.Fatal("a configuration was written for a Node without pod CIDRs")
	}
	setPodCIDRs(t, name, "10.244.5.0/24", "2001:db8:5::/64")
	wait.Eventually(t, 20*time.Second, "the configuration written, dual-stack, without any BGP configuration",
		fileHolds(`"subnet": "10.244.5.0/24"`, `"subnet": "2001:db8:5::/64"`, `"dst": "::/0"`, `"mtu": 1400`, `"type": "kbgp-cni"`))

	create(t, nodeConfig(name))
	wait.Eventually(t, 20*time.Second, "PodNetworkReady in the node's status", func() bool {
		st := getStatus(t, name)
		return meta.IsStatusConditionTrue(st.Conditions, kbgpv1.ConditionPodNetworkReady) && st.PodNetwork != nil &&
			len(st.PodNetwork.PodCIDRs) == 2 && st.PodNetwork.CNIConfig == path && st.PodNetwork.Bridge == "cbr0" && st.PodNetwork.MTU == 1400
	})

	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := server.Client.Delete(context.Background(), testNode(name)); err != nil {
		t.Fatal(err)
	}
	bad := testNode(name)
	bad.Spec.PodCIDRs = []string{"10.244.6.1/24"}
	wait.Eventually(t, 10*time.Second, "the Node re-created", func() bool { return server.Client.Create(context.Background(), bad) == nil })
	wait.Eventually(t, 20*time.Second, "PodNetworkReady False for the bad CIDR", func() bool {
		c := meta.FindStatusCondition(getStatus(t, name).Conditions, kbgpv1.ConditionPodNetworkReady)
		return c != nil && c.Status == metav1.ConditionFalse && c.Reason == "InvalidPodCIDR" && strings.Contains(c.Message, "10.244.6.1/24")
	})
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Errorf("a bad pod CIDR changed the configuration:\n%s", after)
	}
}

func setPodCIDRs(t *testing.T, name string, cidrs ...string) {
	t.Helper()
	var n corev1.Node
	if err := server.Client.Get(context.Background(), client.ObjectKey{Name: name}, &n); err != nil {
		t.Fatal(err)
	}
	n.Spec.PodCIDRs = cidrs
	if err := server.Client.Update(context.Background(), &n); err != nil {
		t.Fatal(err)
	}
}
