package table

import (
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/osrg/gobgp/v4/pkg/config/oc"
	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// ebgpCase is one path sent to one eBGP peer.
type ebgpCase struct {
	name      string
	localAddr string
	confed    bool
	private   oc.RemovePrivateAsOption
	path      func(t *testing.T) *Path
}

func ebgpPeerInfo(t *testing.T, c ebgpCase) (*oc.Global, *PeerInfo) {
	t.Helper()
	g := &oc.Global{Config: oc.GlobalConfig{As: 65001, RouterId: netip.MustParseAddr("10.0.0.1")}}
	if c.confed {
		g.Confederation.Config = oc.ConfederationConfig{Enabled: true, Identifier: 65000, MemberAsList: []uint32{65002}}
	}
	n := &oc.Neighbor{State: oc.NeighborState{PeerType: oc.PEER_TYPE_EXTERNAL, RemovePrivateAs: c.private}}
	local := netip.MustParseAddr(c.localAddr)
	return g, NewPeerInfo(g, n, 65002, 65001, netip.MustParseAddr("10.0.0.2"), local, netip.MustParseAddr("10.0.0.2"), local)
}

// ownPath is a path this router originated: ORIGIN and an unspecified NEXT_HOP, no
// AS_PATH, as kbgp adds them.
func ownPath(t *testing.T, prefix string) *Path {
	t.Helper()
	nlri, err := bgp.NewIPAddrPrefix(netip.MustParsePrefix(prefix))
	require.NoError(t, err)
	nh, err := bgp.NewPathAttributeNextHop(netip.IPv4Unspecified())
	require.NoError(t, err)
	return NewPath(bgp.RF_IPv4_UC, nil, bgp.PathNLRI{NLRI: nlri}, false, []bgp.PathAttributeInterface{bgp.NewPathAttributeOrigin(0), nh}, time.Now(), false)
}

var ebgpCases = []ebgpCase{
	{name: "own path", localAddr: "10.0.0.1", path: func(t *testing.T) *Path { return ownPath(t, "10.1.0.0/24") }},
	{name: "own path, remove-private-as", localAddr: "10.0.0.1", private: oc.REMOVE_PRIVATE_AS_OPTION_ALL, path: func(t *testing.T) *Path { return ownPath(t, "10.1.0.0/24") }},
	{name: "own path to a confederation member", localAddr: "10.0.0.1", confed: true, path: func(t *testing.T) *Path { return ownPath(t, "10.1.0.0/24") }},
	{name: "own path, IPv6 local address", localAddr: "2001:db8::1", path: func(t *testing.T) *Path { return ownPath(t, "10.1.0.0/24") }},
	{name: "own path with an AS_PATH", localAddr: "10.0.0.1", path: func(t *testing.T) *Path {
		p := ownPath(t, "10.1.0.0/24").Clone(false)
		p.setPathAttr(bgp.NewPathAttributeAsPath([]bgp.AsPathParamInterface{bgp.NewAs4PathParam(bgp.BGP_ASPATH_ATTR_TYPE_SEQ, []uint32{64512})}))
		return p
	}},
	{name: "received path", localAddr: "10.0.0.1", path: func(t *testing.T) *Path {
		nlri, _ := bgp.NewIPAddrPrefix(netip.MustParsePrefix("10.2.0.0/24"))
		nh, _ := bgp.NewPathAttributeNextHop(netip.MustParseAddr("10.0.0.3"))
		src := &PeerInfo{AS: 65003, LocalAS: 65001, Address: netip.MustParseAddr("10.0.0.3"), ID: netip.MustParseAddr("10.0.0.3")}
		return NewPath(bgp.RF_IPv4_UC, src, bgp.PathNLRI{NLRI: nlri}, false, []bgp.PathAttributeInterface{
			bgp.NewPathAttributeOrigin(0), nh,
			bgp.NewPathAttributeAsPath([]bgp.AsPathParamInterface{bgp.NewAs4PathParam(bgp.BGP_ASPATH_ATTR_TYPE_SEQ, []uint32{65003})}),
		}, time.Now(), false)
	}},
	{name: "own IPv6 path", localAddr: "2001:db8::1", path: func(t *testing.T) *Path {
		nlri, _ := bgp.NewIPAddrPrefix(netip.MustParsePrefix("2001:db8:1::/48"))
		mp, err := bgp.NewPathAttributeMpReachNLRI(bgp.RF_IPv6_UC, []bgp.PathNLRI{{NLRI: nlri}}, netip.IPv6Unspecified())
		require.NoError(t, err)
		return NewPath(bgp.RF_IPv6_UC, nil, bgp.PathNLRI{NLRI: nlri}, false, []bgp.PathAttributeInterface{bgp.NewPathAttributeOrigin(0), mp}, time.Now(), false)
	}},
}

// serializedAttrs is a path's attributes on the wire.
func serializedAttrs(t *testing.T, p *Path) string {
	t.Helper()
	var out string
	for _, a := range p.GetPathAttrs() {
		b, err := a.Serialize()
		require.NoError(t, err)
		out += fmt.Sprintf("%d:%x ", a.GetType(), b)
	}
	return out
}

// TestEBGPAttributesShared checks kbgp patch "eBGP attributes shared": a path this
// router originated, sent to an eBGP peer, gets the peer's NEXT_HOP and AS_PATH
// made once (two paths hold the same ones), and every path's attributes are what
// they are without the shared ones (a PeerInfo not made by NewPeerInfo).
func TestEBGPAttributesShared(t *testing.T) {
	for _, c := range ebgpCases {
		t.Run(c.name, func(t *testing.T) {
			g, info := ebgpPeerInfo(t, c)
			unshared := *info
			unshared.ebgp = nil
			require.Equal(t, serializedAttrs(t, UpdatePathAttrs(logger, g, &unshared, c.path(t))), serializedAttrs(t, UpdatePathAttrs(logger, g, info, c.path(t))))
		})
	}

	g, info := ebgpPeerInfo(t, ebgpCases[0])
	a := UpdatePathAttrs(logger, g, info, ownPath(t, "10.1.0.0/24"))
	b := UpdatePathAttrs(logger, g, info, ownPath(t, "10.1.1.0/24"))
	for _, typ := range []bgp.BGPAttrType{bgp.BGP_ATTR_TYPE_NEXT_HOP, bgp.BGP_ATTR_TYPE_AS_PATH} {
		require.Same(t, a.getPathAttr(typ), b.getPathAttr(typ), "attribute type %d of two paths", typ)
	}
	own := ownPath(t, "10.1.0.0/24")
	shared := testing.AllocsPerRun(100, func() { UpdatePathAttrs(logger, g, info, own) })
	unshared := *info
	unshared.ebgp = nil
	each := testing.AllocsPerRun(100, func() { UpdatePathAttrs(logger, g, &unshared, own) })
	t.Logf("allocations a path: %.0f shared, %.0f made for each path", shared, each)
	require.Less(t, shared, each)
}
