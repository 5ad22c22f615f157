package e2e

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/frr"
	"kbgp.io/kbgp/test/e2e/netlab"
)

// TestTwoInstancesOnOneNode: a node runs two BGP instances (two local ASNs, each its own
// speaker) with a router each. Adding the second instance, then removing it, brings
// its session up and down at its router while the first instance's session never
// drops; each router sees the node's pod CIDR from the ASN of its own instance.
func TestTwoInstancesOnOneNode(t *testing.T) {
	independent(t)
	lab := netlab.New(t)
	nodeNS, nsA, nsB := lab.Namespace("node"), lab.Namespace("frra"), lab.Namespace("frrb")
	lab.Link(nodeNS, "to-a", []string{"10.72.1.1/30"}, nsA, "to-node", []string{"10.72.1.2/30"})
	lab.Link(nodeNS, "to-b", []string{"10.72.2.1/30"}, nsB, "to-node", []string{"10.72.2.2/30"})
	frrA := netlab.StartFRR(nsA, netlab.FRRConfig{ASN: 65010, RouterID: "10.72.1.2", ListenAddrs: []string{"10.72.1.2"},
		RawConfig: "neighbor 10.72.1.1 remote-as 65001\nneighbor 10.72.1.1 timers connect 1\n"})
	frrB := netlab.StartFRR(nsB, netlab.FRRConfig{ASN: 65020, RouterID: "10.72.2.2", ListenAddrs: []string{"10.72.2.2"},
		RawConfig: "neighbor 10.72.2.1 remote-as 65002\nneighbor 10.72.2.1 timers connect 1\n"})

	nodeName := "e2e-inst-" + strings.Trim(lab.Prefix(), "-")
	ensureNamespace(t)
	pc, ad := podCIDRPeering(nodeName, nil)
	instance := func(asn int64, routerID, peer string, peerASN int64) kbgpv1.BGPNodeInstance {
		return kbgpv1.BGPNodeInstance{BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: asn, RouterID: routerID},
			Peers: []kbgpv1.BGPNodePeer{{BGPPeer: kbgpv1.BGPPeer{Name: "frr", PeerAddress: peer, PeerASN: peerASN, PeerConfigRef: &kbgpv1.PeerConfigReference{Name: pc.Name}}}}}
	}
	first, second := instance(65001, "10.72.1.1", "10.72.1.2", 65010), instance(65002, "10.72.2.1", "10.72.2.2", 65020)
	nc := &kbgpv1.BGPNodeConfig{ObjectMeta: metav1.ObjectMeta{Name: nodeName}, Spec: kbgpv1.BGPNodeConfigSpec{BGPInstances: []kbgpv1.BGPNodeInstance{first}}}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: nodeName}, Spec: corev1.NodeSpec{PodCIDRs: []string{podCIDR4}}}
	create(t, node, pc, ad, nc)
	startAgent(t, lab, nodeNS, nodeName)
	frrA.WaitNeighborState(t, "10.72.1.1", "Established", sessionTimeout)
	frrA.WaitRoute(t, "ipv4", podCIDR4, sessionTimeout, func(r frr.Route) bool { return r.ASPath == "65001" })
	drops := dropped(t, frrA, "10.72.1.1")

	update(t, nc, func(nc *kbgpv1.BGPNodeConfig) { nc.Spec.BGPInstances = []kbgpv1.BGPNodeInstance{first, second} })
	frrB.WaitNeighborState(t, "10.72.2.1", "Established", sessionTimeout)
	frrB.WaitRoute(t, "ipv4", podCIDR4, sessionTimeout, func(r frr.Route) bool { return r.ASPath == "65002" })

	update(t, nc, func(nc *kbgpv1.BGPNodeConfig) { nc.Spec.BGPInstances = []kbgpv1.BGPNodeInstance{first} })
	netlab.WaitFor(t, sessionTimeout, 300*time.Millisecond, func() (bool, string) {
		n, err := frrB.Neighbor("10.72.2.1")
		return err == nil && n.State != "Established", "FRR B still Established with the removed instance: " + n.State
	})
	n, err := frrA.Neighbor("10.72.1.1")
	if err != nil {
		t.Fatal(err)
	}
	if n.State != "Established" || n.ConnectionsDropped != drops {
		t.Errorf("the first instance's session: %s, connectionsDropped %d -> %d while the second came and went", n.State, drops, n.ConnectionsDropped)
	}
}

// TestIBGPMultihop: an iBGP router two hops away (behind a forwarding namespace), as a
// route reflector in another rack would be. The session comes up without any multihop
// setting (iBGP is not limited to one hop) and FRR gets the pod CIDR with the
// advertisement's local preference, which only iBGP carries.
func TestIBGPMultihop(t *testing.T) {
	independent(t)
	lab := netlab.New(t)
	nodeNS, mid, rrNS := lab.Namespace("node"), lab.Namespace("mid"), lab.Namespace("rr")
	lab.Link(nodeNS, "to-mid", []string{"10.73.1.1/30"}, mid, "to-node", []string{"10.73.1.2/30"})
	lab.Link(mid, "to-rr", []string{"10.73.2.1/30"}, rrNS, "to-mid", []string{"10.73.2.2/30"})
	mid.SetForwarding(true)
	nodeNS.AddRoute("10.73.2.0/30", "10.73.1.2")
	rrNS.AddRoute("10.73.1.0/30", "10.73.2.1")
	rr := netlab.StartFRR(rrNS, netlab.FRRConfig{ASN: 65001, RouterID: "10.73.2.2", ListenAddrs: []string{"10.73.2.2"},
		RawConfig: "neighbor 10.73.1.1 remote-as 65001\nneighbor 10.73.1.1 timers connect 1\n"})

	nodeName := "e2e-ibgp-" + strings.Trim(lab.Prefix(), "-")
	ensureNamespace(t)
	pc, ad := podCIDRPeering(nodeName, &kbgpv1.BGPAttributes{LocalPreference: ptr.To[int64](300)})
	nc := &kbgpv1.BGPNodeConfig{ObjectMeta: metav1.ObjectMeta{Name: nodeName}, Spec: kbgpv1.BGPNodeConfigSpec{BGPInstances: []kbgpv1.BGPNodeInstance{{
		BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: 65001, RouterID: "10.73.1.1"},
		Peers:               []kbgpv1.BGPNodePeer{{BGPPeer: kbgpv1.BGPPeer{Name: "rr", PeerAddress: "10.73.2.2", PeerASN: 65001, PeerConfigRef: &kbgpv1.PeerConfigReference{Name: pc.Name}}}},
	}}}}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: nodeName}, Spec: corev1.NodeSpec{PodCIDRs: []string{podCIDR4}}}
	create(t, node, pc, ad, nc)
	startAgent(t, lab, nodeNS, nodeName)
	rr.WaitNeighborState(t, "10.73.1.1", "Established", sessionTimeout)
	rr.WaitRoute(t, "ipv4", podCIDR4, sessionTimeout, func(r frr.Route) bool { return r.LocalPref != nil && *r.LocalPref == 300 })
}

// podCIDRPeering is an IPv4 peer config with short timers and the advertisement of the
// node's pod CIDRs (with attrs) it selects, both named after the node.
func podCIDRPeering(nodeName string, attrs *kbgpv1.BGPAttributes) (*kbgpv1.BGPPeerConfig, *kbgpv1.BGPAdvertisement) {
	sel := &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"advertise": kbgpv1.LabelValue(nodeName)}}
	pc := &kbgpv1.BGPPeerConfig{ObjectMeta: metav1.ObjectMeta{Name: nodeName}, Spec: kbgpv1.BGPPeerConfigSpec{
		Timers:   &kbgpv1.BGPTimers{ConnectRetryTimeSeconds: ptr.To[int32](1), HoldTimeSeconds: ptr.To[int32](9), KeepAliveTimeSeconds: ptr.To[int32](3)},
		Families: []kbgpv1.BGPFamily{{AFI: kbgpv1.AFIIPv4, SAFI: kbgpv1.SAFIUnicast, Advertisements: sel}}}}
	ad := &kbgpv1.BGPAdvertisement{ObjectMeta: metav1.ObjectMeta{Name: nodeName, Labels: map[string]string{"advertise": nodeName}},
		Spec: kbgpv1.BGPAdvertisementSpec{Advertisements: []kbgpv1.Advertisement{{AdvertisementType: kbgpv1.AdvertisementPodCIDR, Attributes: attrs}}}}
	return pc, ad
}
