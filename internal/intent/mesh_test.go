package intent

import (
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
)

// TestMeshPeers: the mesh's nodes become iBGP peers with the mesh's peer config, the
// rendered source address, passive mode; on a reflector, every mesh peer has the
// instance's cluster ID (the speaker reflects with it), and the clients are route
// reflector clients.
func TestMeshPeers(t *testing.T) {
	nc := nodeConfig("", nodePeer("tor", "10.1.1.1", 65002, ""))
	nc.Spec.BGPInstances[0].Mesh = &kbgpv1.BGPNodeMesh{
		PeerConfigRef: &kbgpv1.PeerConfigReference{Name: "mesh"},
		ClusterID:     "10.0.0.1",
		Peers: []kbgpv1.BGPMeshPeer{
			{Name: "mesh-a-v4", Node: "a", PeerAddress: "10.0.0.5", LocalAddress: "10.0.0.10", Role: kbgpv1.MeshRoleClient, Passive: true},
			{Name: "mesh-r-v4", Node: "r", PeerAddress: "10.0.0.20", LocalAddress: "10.0.0.10", Role: kbgpv1.MeshRolePeer},
		},
	}
	pc := &kbgpv1.BGPPeerConfig{ObjectMeta: metav1.ObjectMeta{Name: "mesh"}, Spec: kbgpv1.BGPPeerConfigSpec{
		Families: []kbgpv1.BGPFamily{{AFI: kbgpv1.AFIIPv4, SAFI: kbgpv1.SAFIUnicast, ImportPodRoutes: true}},
	}}
	res := build(Input{NodeConfig: nc, Node: node(), PeerConfigs: map[string]*kbgpv1.BGPPeerConfig{"mesh": pc}})
	peers := res.Desired.Instances[key].Peers
	if len(peers) != 3 {
		t.Fatalf("got peers %v, want tor and two mesh peers", peers)
	}
	meshPeer := func(name, addr string) bgp.Peer {
		p := defaultPeer(name, addr, 65001)
		p.LocalAddress = netip.MustParseAddr("10.0.0.10")
		p.Families = []bgp.Family{bgp.FamilyIPv4Unicast}
		p.ImportPodRoutes = []bgp.Family{bgp.FamilyIPv4Unicast}
		p.MaxPrefixes = map[bgp.Family]uint32{bgp.FamilyIPv4Unicast: kbgpv1.DefaultMaxPrefixes}
		return p
	}
	client := meshPeer("mesh-a-v4", "10.0.0.5")
	client.Passive, client.RouteReflectorClient, client.RouteReflectorClusterID = true, true, netip.MustParseAddr("10.0.0.1")
	reflector := meshPeer("mesh-r-v4", "10.0.0.20")
	reflector.RouteReflectorClusterID = netip.MustParseAddr("10.0.0.1")
	for name, want := range map[string]bgp.Peer{"mesh-a-v4": client, "mesh-r-v4": reflector} {
		if diff := cmp.Diff(want, peers[name].Peer, cmp.Comparer(func(a, b netip.Addr) bool { return a == b })); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
}

// TestAddPathsPerFamily: a family's addPaths becomes the peer's ADD-PATH send max for
// that family only.
func TestAddPathsPerFamily(t *testing.T) {
	pc := &kbgpv1.BGPPeerConfig{ObjectMeta: metav1.ObjectMeta{Name: "rr"}, Spec: kbgpv1.BGPPeerConfigSpec{
		Families: []kbgpv1.BGPFamily{
			{AFI: kbgpv1.AFIIPv4, SAFI: kbgpv1.SAFIUnicast, AddPaths: &kbgpv1.BGPAddPaths{SendMax: 8}},
			{AFI: kbgpv1.AFIIPv6, SAFI: kbgpv1.SAFIUnicast},
		},
	}}
	res := build(Input{NodeConfig: nodeConfig("", nodePeer("tor", "10.1.1.1", 65002, "rr")), Node: node(),
		PeerConfigs: map[string]*kbgpv1.BGPPeerConfig{"rr": pc}})
	got := res.Desired.Instances[key].Peers["tor"].Peer.AddPathsSend
	if want := map[bgp.Family]uint8{bgp.FamilyIPv4Unicast: 8}; !cmp.Equal(got, want) {
		t.Errorf("AddPathsSend = %v, want %v", got, want)
	}
}
