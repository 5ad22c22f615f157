package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/test/e2e/netlab"
)

// TestNeverImport: FRR and BIRD each announce a prefix (and FRR a default route) to the
// node. The node counts them as received, and passes none on: BIRD never gets FRR's,
// FRR never gets BIRD's, and the node's kernel gets neither — while both routers do get
// the node's own pod CIDR (control: the sessions carry routes at all).
func TestNeverImport(t *testing.T) {
	independent(t)
	const frrPrefix, birdPrefix = "10.199.1.0/24", "10.199.2.0/24"
	lab := netlab.New(t)
	nodeNS, frrNS, birdNS := lab.Namespace("node"), lab.Namespace("frr"), lab.Namespace("bird")
	lab.Link(nodeNS, "to-frr", []string{"10.75.1.1/30"}, frrNS, "to-node", []string{"10.75.1.2/30"})
	lab.Link(nodeNS, "to-bird", []string{"10.75.2.1/30"}, birdNS, "to-node", []string{"10.75.2.2/30"})
	f := netlab.StartFRR(frrNS, netlab.FRRConfig{ASN: 65010, RouterID: "10.75.1.2", ListenAddrs: []string{"10.75.1.2"},
		RawConfig: "neighbor 10.75.1.1 remote-as 65001\nneighbor 10.75.1.1 timers connect 1\naddress-family ipv4 unicast\n network " + frrPrefix + "\n network 0.0.0.0/0\nexit-address-family\n"})
	b := netlab.StartBIRD(birdNS, `
router id 10.75.2.2;
protocol device {}
protocol static own4 {
	ipv4;
	route `+birdPrefix+` blackhole;
}
protocol bgp kbgp {
	local 10.75.2.2 as 65020;
	neighbor 10.75.2.1 as 65001;
	connect retry time 1;
	ipv4 { import all; export where net = `+birdPrefix+`; };
}
`)
	nodeName := "e2e-noimp-" + strings.Trim(lab.Prefix(), "-")
	ensureNamespace(t)
	pc, ad := podCIDRPeering(nodeName, nil)
	peer := func(name, addr string, asn int64) kbgpv1.BGPNodePeer {
		return kbgpv1.BGPNodePeer{BGPPeer: kbgpv1.BGPPeer{Name: name, PeerAddress: addr, PeerASN: asn, PeerConfigRef: &kbgpv1.PeerConfigReference{Name: pc.Name}}}
	}
	nc := &kbgpv1.BGPNodeConfig{ObjectMeta: metav1.ObjectMeta{Name: nodeName}, Spec: kbgpv1.BGPNodeConfigSpec{BGPInstances: []kbgpv1.BGPNodeInstance{{
		BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: 65001, RouterID: "10.75.1.1"},
		Peers:               []kbgpv1.BGPNodePeer{peer("frr", "10.75.1.2", 65010), peer("bird", "10.75.2.2", 65020)},
	}}}}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: nodeName}, Spec: corev1.NodeSpec{PodCIDRs: []string{podCIDR4}}}
	create(t, node, pc, ad, nc)
	startAgent(t, lab, nodeNS, nodeName)
	f.WaitNeighborState(t, "10.75.1.1", "Established", sessionTimeout)

	netlab.WaitFor(t, sessionTimeout, 500*time.Millisecond, func() (bool, string) {
		got := map[string]int64{}
		for _, inst := range nodeStatus(t, nodeName).BGPInstances {
			for _, p := range inst.Peers {
				got[p.Name] = p.RoutesReceived
			}
		}
		// FRR also sends the node's own pod CIDR back (its AS path shows the loop),
		// which counts as received too.
		return got["frr"] >= 2 && got["bird"] == 1, fmt.Sprintf("routes received: %v, want frr at least 2, bird 1", got)
	})
	waitFRRPrefix(t, f, "ipv4", podCIDR4, true)
	netlab.WaitFor(t, sessionTimeout, 300*time.Millisecond, func() (bool, string) {
		routes, err := b.Routes("master4")
		_, ok := routes[podCIDR4]
		return err == nil && ok, fmt.Sprintf("BIRD has no %s yet: %v", podCIDR4, err)
	})
	// Both routers hold the node's route: anything the node passed on would be there too.
	frrRoutes, err := f.Routes("ipv4")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := frrRoutes[birdPrefix]; ok {
		t.Errorf("FRR received BIRD's %s through the node", birdPrefix)
	}
	birdRoutes, err := b.Routes("master4")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{frrPrefix, "0.0.0.0/0"} {
		if r, ok := birdRoutes[p]; ok && r.Proto == "kbgp" {
			t.Errorf("BIRD received FRR's %s through the node", p)
		}
	}
	out := nodeNS.MustExec("ip", "route", "show", "table", "all")
	for _, p := range []string{frrPrefix, birdPrefix, "default"} {
		if strings.Contains(out, p) {
			t.Errorf("%s reached the node's kernel:\n%s", p, out)
		}
	}
}
