package e2e

import (
	"fmt"
	"net/netip"
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

// The routing-on-the-host topology: a node namespace with two links, up1 and up2, to
// two FRR ToRs, with no address on either end but the kernel's IPv6 link-local ones.
// Each ToR peers with `neighbor to-node interface remote-as external`, which also
// makes it send router advertisements on the link, so the node's kernel has the ToR
// in its neighbour table, flagged a router.
const (
	hostPodCIDR4 = "10.244.34.0/24"
	hostPodCIDR6 = "2001:db8:244:34::/64"
	torPrefix    = "10.34.0.0/16"
	hostLoopback = "10.34.255.1"
)

// TestUnnumberedSessionsToTwoToRs: both sessions come up over the links' link-local
// addresses; each ToR has the node's IPv4 pod CIDR and its loopback address (a
// NodeAddress advertisement of lo) with the node's link-local address on its link as
// next hop (RFC 8950), and the IPv6 pod CIDR; the node's status names the
// interface and the router found on it. A peer over an interface that does not exist
// is reported and the others are unaffected.
func TestUnnumberedSessionsToTwoToRs(t *testing.T) {
	independent(t)
	lab := netlab.New(t)
	node := lab.Namespace("node")
	nodeName := "e2e-host-" + strings.Trim(lab.Prefix(), "-")
	tors := startToRs(lab, node, torOptions{})

	ensureNamespace(t)
	pc := &kbgpv1.BGPPeerConfig{ObjectMeta: metav1.ObjectMeta{Name: nodeName}, Spec: kbgpv1.BGPPeerConfigSpec{
		Timers: &kbgpv1.BGPTimers{ConnectRetryTimeSeconds: ptr.To[int32](1), HoldTimeSeconds: ptr.To[int32](9), KeepAliveTimeSeconds: ptr.To[int32](3)},
		Families: []kbgpv1.BGPFamily{
			{AFI: kbgpv1.AFIIPv4, SAFI: kbgpv1.SAFIUnicast, Advertisements: &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"advertise": kbgpv1.LabelValue(nodeName)}}},
			{AFI: kbgpv1.AFIIPv6, SAFI: kbgpv1.SAFIUnicast, Advertisements: &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"advertise": kbgpv1.LabelValue(nodeName)}}},
		},
	}}
	peer := func(name, iface string, asn int64) kbgpv1.BGPNodePeer {
		return kbgpv1.BGPNodePeer{BGPPeer: kbgpv1.BGPPeer{Name: name, Interface: iface, PeerASN: asn, PeerConfigRef: &kbgpv1.PeerConfigReference{Name: pc.Name}}}
	}
	nc := &kbgpv1.BGPNodeConfig{ObjectMeta: metav1.ObjectMeta{Name: nodeName}, Spec: kbgpv1.BGPNodeConfigSpec{BGPInstances: []kbgpv1.BGPNodeInstance{{
		BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: 65034, RouterID: "10.34.255.1"},
		Peers:               []kbgpv1.BGPNodePeer{peer("tor1", "up1", 65101), peer("tor2", "up2", 65102), peer("ghost", "up9", 65109)},
	}}}}
	pods := &kbgpv1.BGPAdvertisement{
		ObjectMeta: metav1.ObjectMeta{Name: nodeName + "-pods", Labels: map[string]string{"advertise": nodeName}},
		Spec: kbgpv1.BGPAdvertisementSpec{Advertisements: []kbgpv1.Advertisement{{AdvertisementType: kbgpv1.AdvertisementPodCIDR},
			{AdvertisementType: kbgpv1.AdvertisementNodeAddress, NodeAddress: &kbgpv1.NodeAddressAdvertisement{Interface: "lo"}}}},
	}
	// The node is reached at its loopback address whichever uplink is up.
	node.AddAddr("lo", hostLoopback+"/32")
	k8sNode := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: nodeName}, Spec: corev1.NodeSpec{PodCIDRs: []string{hostPodCIDR4, hostPodCIDR6}}}
	create(t, k8sNode, pc, pods, nc)
	startAgent(t, lab, node, nodeName)

	for up, tor := range tors {
		tor.WaitNeighborState(t, "to-node", "Established", sessionTimeout)
		nodeLL := linkLocal(t, node, up)
		r := tor.WaitRoute(t, "ipv4", hostPodCIDR4, sessionTimeout, func(r frr.Route) bool { return r.Valid })
		if !hasNexthop(r, nodeLL) {
			t.Errorf("%s: the IPv4 pod CIDR's next hops are %+v, want the node's link-local %s on its link", up, r.Paths, nodeLL)
		}
		tor.WaitRoute(t, "ipv6", hostPodCIDR6, sessionTimeout, func(r frr.Route) bool { return r.Valid && hasNexthop(r, nodeLL) })
		tor.WaitRoute(t, "ipv4", hostLoopback+"/32", sessionTimeout, func(r frr.Route) bool { return r.Valid && hasNexthop(r, nodeLL) })
	}

	netlab.WaitFor(t, sessionTimeout, 200*time.Millisecond, func() (bool, string) {
		st := nodeStatus(t, nodeName)
		got := map[string]kbgpv1.BGPNodePeerStatus{}
		for _, inst := range st.BGPInstances {
			for _, p := range inst.Peers {
				got[p.Name] = p
			}
		}
		for name, up := range map[string]string{"tor1": "up1", "tor2": "up2"} {
			p := got[name]
			if p.PeeringState != kbgpv1.PeeringStateEstablished || p.Interface != up || !strings.HasPrefix(p.PeerAddress, "fe80::") {
				return false, "peer " + name + " status: " + p.PeerAddress + " " + p.Interface + " " + string(p.PeeringState)
			}
		}
		for _, f := range st.FailedResources {
			if f.Kind == "Interface" && f.Name == "up9" {
				return true, ""
			}
		}
		return false, "up9 not in failedResources"
	})
}

// torOptions add to startToRs' ToRs: ipv4 to the IPv4 address family's
// configuration; before runs on each ToR's namespace before FRR starts (more links,
// addresses); bfd runs bfdd with `neighbor to-node bfd profile e2e` (300 ms, x3).
type torOptions struct {
	ipv4   string
	before func(up string, tor *netlab.Namespace)
	bfd    bool
}

// startToRs links the node namespace to two ToR namespaces (node up1 ↔ tor1 to-node,
// up2 ↔ tor2), link-local addresses only, and starts FRR with zebra on each: AS
// 65101 and 65102, `neighbor to-node interface remote-as external`, announcing
// torPrefix.
func startToRs(lab *netlab.Lab, node *netlab.Namespace, o torOptions) map[string]*netlab.FRR {
	tors := map[string]*netlab.FRR{}
	for i, up := range []string{"up1", "up2"} {
		ns := lab.Namespace("tor" + up[2:])
		lab.Link(node, up, nil, ns, "to-node", nil)
		if o.before != nil {
			o.before(up, ns)
		}
		cfg := netlab.FRRConfig{
			ASN: uint32(65101 + i), RouterID: "10.34.0." + up[2:], Zebra: true,
			RawConfig: `
neighbor to-node interface remote-as external
neighbor to-node timers connect 1
address-family ipv4 unicast
 network ` + torPrefix + `
` + o.ipv4 + `exit-address-family
address-family ipv6 unicast
 neighbor to-node activate
exit-address-family
`,
		}
		if o.bfd {
			cfg.BFD = true
			cfg.BFDConfig = "bfd\n profile e2e\n  receive-interval 300\n  transmit-interval 300\n  detect-multiplier 3\n exit\nexit\n"
			cfg.RawConfig = strings.Replace(cfg.RawConfig, "address-family ipv4", "neighbor to-node bfd profile e2e\naddress-family ipv4", 1)
		}
		tors[up] = netlab.StartFRR(ns, cfg)
	}
	return tors
}

// linkLocal is the IPv6 link-local address of ifname in ns.
func linkLocal(t *testing.T, ns *netlab.Namespace, ifname string) string {
	t.Helper()
	out, err := ns.Exec("ip", "-6", "-o", "addr", "show", "dev", ifname, "scope", "link")
	if err != nil {
		t.Fatalf("%s: %v: %s", ifname, err, out)
	}
	for _, f := range strings.Fields(out) {
		if p, err := netip.ParsePrefix(f); err == nil && p.Addr().IsLinkLocalUnicast() {
			return p.Addr().String()
		}
	}
	t.Fatalf("%s has no link-local address: %s", ifname, out)
	return ""
}

// hasNexthop says whether one of r's paths has addr among its next hops.
func hasNexthop(r frr.Route, addr string) bool {
	for _, p := range r.Paths {
		for _, nh := range p.Nexthops {
			if nh.IP == addr {
				return true
			}
		}
	}
	return false
}

// TestDefaultGatewayPeerFollowsTheDefaultRoute: a peer discovering the IPv4 default
// gateway runs to the router the node's default route points at, and moves to the
// other router when the default route does.
func TestDefaultGatewayPeerFollowsTheDefaultRoute(t *testing.T) {
	independent(t)
	lab := netlab.New(t)
	node := lab.Namespace("node")
	nodeName := "e2e-gw-" + strings.Trim(lab.Prefix(), "-")
	lan := lab.Bridge("lan")
	lan.Attach(node, "eth0", []string{"10.35.0.1/24"})
	routers := map[string]*netlab.FRR{}
	for _, addr := range []string{"10.35.0.2", "10.35.0.3"} {
		ns := lab.Namespace("r" + addr[len(addr)-1:])
		lan.Attach(ns, "eth0", []string{addr + "/24"})
		routers[addr] = netlab.StartFRR(ns, netlab.FRRConfig{ASN: 65100, RouterID: addr, ListenAddrs: []string{addr}, RawConfig: `
neighbor 10.35.0.1 remote-as 65035
neighbor 10.35.0.1 timers connect 1
address-family ipv4 unicast
 network 10.35.` + addr[len(addr)-1:] + `.0/24
exit-address-family
`})
	}
	if out, err := node.Exec("ip", "route", "add", "default", "via", "10.35.0.2"); err != nil {
		t.Fatalf("default route: %v: %s", err, out)
	}

	ensureNamespace(t)
	pc := &kbgpv1.BGPPeerConfig{ObjectMeta: metav1.ObjectMeta{Name: nodeName}, Spec: kbgpv1.BGPPeerConfigSpec{
		Timers: &kbgpv1.BGPTimers{ConnectRetryTimeSeconds: ptr.To[int32](1), HoldTimeSeconds: ptr.To[int32](9), KeepAliveTimeSeconds: ptr.To[int32](3)},
	}}
	nc := &kbgpv1.BGPNodeConfig{ObjectMeta: metav1.ObjectMeta{Name: nodeName}, Spec: kbgpv1.BGPNodeConfigSpec{BGPInstances: []kbgpv1.BGPNodeInstance{{
		BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: 65035, RouterID: "10.35.0.1"},
		Peers: []kbgpv1.BGPNodePeer{{BGPPeer: kbgpv1.BGPPeer{Name: "gateway", PeerASN: 65100, PeerConfigRef: &kbgpv1.PeerConfigReference{Name: pc.Name},
			AutoDiscovery: &kbgpv1.PeerAutoDiscovery{Mode: kbgpv1.AutoDiscoveryDefaultGateway, DefaultGateway: &kbgpv1.DefaultGatewayDiscovery{AddressFamily: kbgpv1.AFIIPv4}}}}},
	}}}}
	create(t, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: nodeName}}, pc, nc)
	startAgent(t, lab, node, nodeName)

	follows := func(gw, other string) {
		t.Helper()
		routers[gw].WaitNeighborState(t, "10.35.0.1", "Established", sessionTimeout)
		netlab.WaitFor(t, sessionTimeout, 200*time.Millisecond, func() (bool, string) {
			st := peerStatus(t, nodeName, "gateway")
			n, err := routers[other].Neighbor("10.35.0.1")
			return st.PeerAddress == gw && st.PeeringState == kbgpv1.PeeringStateEstablished && err == nil && n.State != "Established",
				fmt.Sprintf("status %s %s; %s's session %s (%v)", st.PeerAddress, st.PeeringState, other, n.State, err)
		})
	}
	follows("10.35.0.2", "10.35.0.3")
	if out, err := node.Exec("ip", "route", "replace", "default", "via", "10.35.0.3"); err != nil {
		t.Fatalf("default route: %v: %s", err, out)
	}
	follows("10.35.0.3", "10.35.0.2")
}

// peerStatus is the status of the peer name of the node's config.
func peerStatus(t *testing.T, node, name string) kbgpv1.BGPNodePeerStatus {
	t.Helper()
	for _, inst := range nodeStatus(t, node).BGPInstances {
		for _, p := range inst.Peers {
			if p.Name == name {
				return p
			}
		}
	}
	return kbgpv1.BGPNodePeerStatus{}
}
