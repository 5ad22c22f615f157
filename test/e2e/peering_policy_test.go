package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/frr"
	"kbgp.io/kbgp/test/e2e/netlab"
)

// TestClusterConfiguredByAPeeringPolicyOnly: the only BGP object is a
// BGPPeeringPolicy (the single-object policy). The operator generates the
// split objects, the agent peers with FRR and FRR gets the node's pod CIDR; deleting
// the policy (the garbage collector running, as in a cluster) removes every generated
// object, closes the session and withdraws the route.
func TestClusterConfiguredByAPeeringPolicyOnly(t *testing.T) {
	lab := netlab.New(t)
	nodeNS, routerNS, ctl := lab.Namespace("node"), lab.Namespace("router"), lab.Namespace("ctl")
	lab.Link(nodeNS, "to-router", []string{"10.79.0.1/30"}, routerNS, "to-node", []string{"10.79.0.2/30"})
	router := netlab.StartFRR(routerNS, netlab.FRRConfig{ASN: 65011, RouterID: "10.79.0.2", ListenAddrs: []string{"10.79.0.2"},
		RawConfig: "neighbor 10.79.0.1 remote-as 65001\nneighbor 10.79.0.1 timers connect 1\n"})
	stopGC, err := server.StartGarbageCollector(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stopGC)

	ensureNamespace(t)
	name := "e2e-" + strings.Trim(lab.Prefix(), "-")
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"bgp-policy": name}},
		Spec: corev1.NodeSpec{PodCIDRs: []string{podCIDR4}}}
	policy := &kbgpv1.BGPPeeringPolicy{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: kbgpv1.BGPPeeringPolicySpec{
		NodeSelector: &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"bgp-policy": kbgpv1.LabelValue(name)}},
		VirtualRouters: []kbgpv1.BGPVirtualRouter{{LocalASN: 65001, ExportPodCIDR: true, Neighbors: []kbgpv1.BGPNeighbor{{
			PeerAddress: "10.79.0.2/32", PeerASN: 65011,
			ConnectRetryTimeSeconds: ptr.To[int32](1), HoldTimeSeconds: ptr.To[int32](9), KeepAliveTimeSeconds: ptr.To[int32](3),
			Families: []kbgpv1.BGPNeighborFamily{{AFI: kbgpv1.AFIIPv4, SAFI: kbgpv1.SAFIUnicast}},
		}}}},
	}}
	create(t, node, policy)
	// The policy sets no router ID: the agent takes the node's InternalIP.
	node.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.79.0.1"}}
	if err := server.Client.Status().Update(t.Context(), node); err != nil {
		t.Fatal(err)
	}
	startOperatorProcess(t, lab, ctl)
	startAgent(t, lab, nodeNS, name)

	router.WaitNeighborState(t, "10.79.0.1", "Established", sessionTimeout)
	router.WaitRoute(t, "ipv4", podCIDR4, sessionTimeout, func(r frr.Route) bool { return r.ASPath == "65001" })
	if n := generatedObjects(t, name); n != 3 {
		t.Errorf("%d generated objects, want a cluster config, a peer config and an advertisement", n)
	}

	if err := server.Client.Delete(t.Context(), policy); err != nil {
		t.Fatal(err)
	}
	netlab.WaitFor(t, sessionTimeout, 300*time.Millisecond, func() (bool, string) {
		n := generatedObjects(t, name)
		return n == 0, fmt.Sprintf("%d generated objects left", n)
	})
	netlab.WaitFor(t, sessionTimeout, 300*time.Millisecond, func() (bool, string) {
		routes, err := router.Routes("ipv4")
		_, held := routes[podCIDR4]
		n, nerr := router.Neighbor("10.79.0.1")
		return err == nil && nerr == nil && !held && n.State != "Established",
			fmt.Sprintf("FRR: pod CIDR held %v (%v), session %s (%v)", held, err, n.State, nerr)
	})
}

// generatedObjects counts the objects labelled as generated from policy.
func generatedObjects(t *testing.T, policy string) int {
	t.Helper()
	n := 0
	for _, list := range []client.ObjectList{&kbgpv1.BGPClusterConfigList{}, &kbgpv1.BGPPeerConfigList{}, &kbgpv1.BGPAdvertisementList{}} {
		if err := server.Client.List(t.Context(), list, client.MatchingLabels{kbgpv1.PeeringPolicyLabel: policy}); err != nil {
			t.Fatal(err)
		}
		items, err := meta.ExtractList(list)
		if err != nil {
			t.Fatal(err)
		}
		n += len(items)
	}
	return n
}
