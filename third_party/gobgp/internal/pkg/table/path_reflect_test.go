package table

import (
	"net/netip"
	"testing"
	"time"

	"github.com/osrg/gobgp/v4/pkg/config/oc"
	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
	"github.com/stretchr/testify/require"
)

// TestReflectedToANonClient: a route reflector sending a client's route to an iBGP
// peer that is no client (another reflector of the cluster) reflects it, and RFC 4456
// (section 8) has it set ORIGINATOR_ID to the client's BGP Identifier and prepend its
// CLUSTER_ID, as it does toward a client. An ORIGINATOR_ID the route already has is
// kept. A route not reflected (toward an eBGP peer) carries neither attribute.
func TestReflectedToANonClient(t *testing.T) {
	const asn = 65000
	global := &oc.Global{Config: oc.GlobalConfig{As: asn, RouterId: netip.MustParseAddr("10.0.0.1")}}
	cluster := netip.MustParseAddr("10.0.0.100")
	client := &PeerInfo{AS: asn, LocalAS: asn, PeerType: oc.PEER_TYPE_INTERNAL, Address: netip.MustParseAddr("10.0.0.14"), ID: netip.MustParseAddr("10.0.0.14"),
		RouteReflectorClient: true, RouteReflectorClusterID: cluster}
	otherReflector := &PeerInfo{AS: asn, LocalAS: asn, PeerType: oc.PEER_TYPE_INTERNAL, Address: netip.MustParseAddr("10.0.0.12"), ID: netip.MustParseAddr("10.0.0.12"),
		LocalAddress: netip.MustParseAddr("10.0.0.11")}
	external := &PeerInfo{AS: 65100, LocalAS: asn, PeerType: oc.PEER_TYPE_EXTERNAL, Address: netip.MustParseAddr("10.9.0.1"), ID: netip.MustParseAddr("10.9.0.1"),
		LocalAddress: netip.MustParseAddr("10.9.0.2")}
	nlri, _ := bgp.NewIPAddrPrefix(netip.MustParsePrefix("10.245.4.0/24"))
	route := func(extra ...bgp.PathAttributeInterface) *Path {
		nh, _ := bgp.NewPathAttributeNextHop(netip.MustParseAddr("10.0.0.14"))
		attrs := append([]bgp.PathAttributeInterface{bgp.NewPathAttributeOrigin(0), bgp.NewPathAttributeAsPath(nil), nh, bgp.NewPathAttributeLocalPref(100)}, extra...)
		return NewPath(bgp.RF_IPv4_UC, client, bgp.PathNLRI{NLRI: nlri}, false, attrs, time.Now(), false)
	}

	sent := UpdatePathAttrs(logger, global, otherReflector, route())
	require.Equal(t, client.ID, sent.GetOriginatorID(), "ORIGINATOR_ID of a client's route sent to another reflector")
	require.Equal(t, []netip.Addr{cluster}, sent.GetClusterList(), "CLUSTER_LIST of a client's route sent to another reflector")

	below, _ := bgp.NewPathAttributeOriginatorId(netip.MustParseAddr("10.0.7.7"))
	belowClusters, _ := bgp.NewPathAttributeClusterList([]netip.Addr{netip.MustParseAddr("10.0.7.100")})
	sent = UpdatePathAttrs(logger, global, otherReflector, route(below, belowClusters))
	require.Equal(t, netip.MustParseAddr("10.0.7.7"), sent.GetOriginatorID(), "an ORIGINATOR_ID the route has is kept")
	require.Equal(t, []netip.Addr{cluster, netip.MustParseAddr("10.0.7.100")}, sent.GetClusterList(), "the CLUSTER_ID is prepended")

	sent = UpdatePathAttrs(logger, global, external, route(below, belowClusters))
	require.False(t, sent.GetOriginatorID().IsValid(), "ORIGINATOR_ID sent to an eBGP peer")
	require.Empty(t, sent.GetClusterList(), "CLUSTER_LIST sent to an eBGP peer")
}
