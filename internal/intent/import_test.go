package intent

import (
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
)

// TestRouteImport: a family's import policy with ge/le resolved as in FRR's prefix
// lists and the cap's default.
func TestRouteImport(t *testing.T) {
	m := func(prefix string, minLen, maxLen int) bgp.PrefixMatch {
		return bgp.PrefixMatch{Prefix: netip.MustParsePrefix(prefix), MinLen: minLen, MaxLen: maxLen}
	}
	for _, tc := range []struct {
		name string
		in   kbgpv1.RouteImport
		fam  bgp.Family
		want bgp.RouteImport
	}{
		{"default route only", kbgpv1.RouteImport{AllowDefaultRoute: true}, bgp.FamilyIPv4Unicast,
			bgp.RouteImport{AllowDefaultRoute: true, MaxRoutes: kbgpv1.DefaultImportMaxRoutes}},
		{"ge and le", kbgpv1.RouteImport{MaxRoutes: ptr.To[int32](5), Prefixes: []kbgpv1.ImportPrefix{
			{Prefix: "10.0.0.0/8"},
			{Prefix: "172.16.0.0/12", GE: ptr.To[int32](16)},
			{Prefix: "192.168.0.0/16", LE: ptr.To[int32](24)},
			{Prefix: "100.64.0.0/10", GE: ptr.To[int32](20), LE: ptr.To[int32](28)},
		}}, bgp.FamilyIPv4Unicast, bgp.RouteImport{MaxRoutes: 5, Prefixes: []bgp.PrefixMatch{
			m("10.0.0.0/8", 8, 8), m("172.16.0.0/12", 16, 32), m("192.168.0.0/16", 16, 24), m("100.64.0.0/10", 20, 28),
		}}},
		{"IPv6", kbgpv1.RouteImport{Prefixes: []kbgpv1.ImportPrefix{{Prefix: "2001:db8::/32", GE: ptr.To[int32](48)}, {Prefix: "10.0.0.0/8"}}},
			bgp.FamilyIPv6Unicast, bgp.RouteImport{MaxRoutes: kbgpv1.DefaultImportMaxRoutes, Prefixes: []bgp.PrefixMatch{m("2001:db8::/32", 48, 128)}}},
	} {
		if diff := cmp.Diff(tc.want, routeImport(tc.in, tc.fam), cmp.Comparer(func(a, b netip.Prefix) bool { return a == b })); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}

// TestImportPolicyPeers: a family's import policy reaches the peer in the default VRF;
// a VRF peer's is dropped, since the routes would go into the main table, and the
// node status says so (the peer still runs).
func TestImportPolicyPeers(t *testing.T) {
	pc := &kbgpv1.BGPPeerConfig{ObjectMeta: metav1.ObjectMeta{Name: "uplink"}, Spec: kbgpv1.BGPPeerConfigSpec{
		Families: []kbgpv1.BGPFamily{{AFI: kbgpv1.AFIIPv4, SAFI: kbgpv1.SAFIUnicast, Import: &kbgpv1.RouteImport{AllowDefaultRoute: true}}},
	}}
	inVRF := nodePeer("blue", "10.1.1.2", 65002, "uplink")
	inVRF.VRF = "blue"
	res := build(Input{NodeConfig: nodeConfig("", nodePeer("tor", "10.1.1.1", 65002, "uplink"), inVRF), Node: node(),
		PeerConfigs: map[string]*kbgpv1.BGPPeerConfig{"uplink": pc}, MissingVRFs: map[string]struct{}{}})
	want := map[bgp.Family]bgp.RouteImport{bgp.FamilyIPv4Unicast: {AllowDefaultRoute: true, MaxRoutes: kbgpv1.DefaultImportMaxRoutes}}
	if got := res.Desired.Instances[key].Peers["tor"].Peer.ImportRoutes; !cmp.Equal(want, got) {
		t.Errorf("tor's import: %v, want %v", got, want)
	}
	blue := res.Desired.Instances[bgp.InstanceKey{LocalASN: 65001, VRF: "blue"}].Peers["blue"]
	if blue.Peer.Name != "blue" || blue.Peer.ImportRoutes != nil {
		t.Errorf("the VRF peer %q imports %v, want a peer without import", blue.Peer.Name, blue.Peer.ImportRoutes)
	}
	wantFailed := []kbgpv1.FailedResource{{Kind: "BGPPeerConfig", Name: "uplink",
		Message: "import of ipv4-unicast is ignored for peer blue in VRF blue: imported routes go into the main routing table only"}}
	if diff := cmp.Diff(wantFailed, res.Failed); diff != "" {
		t.Errorf("failed resources (-want +got):\n%s", diff)
	}
}
