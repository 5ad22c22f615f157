package table

import (
	"math/rand/v2"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// TestAttributesDroppedWithoutAList checks kbgp patch "attributes dropped without a
// list": eachPathAttr visits the attributes GetPathAttrs lists, each once, along
// random derivations; UpdatePathAttrs still drops an unknown non-transitive attribute
// and a reflection's attributes for an eBGP peer and keeps an unknown transitive one;
// and sending an own path to an eBGP peer no longer makes an attribute list.
func TestAttributesDroppedWithoutAList(t *testing.T) {
	cluster, _ := bgp.NewPathAttributeClusterList([]netip.Addr{netip.MustParseAddr("10.9.9.9")})
	originator, _ := bgp.NewPathAttributeOriginatorId(netip.MustParseAddr("10.8.8.8"))
	pool := []bgp.PathAttributeInterface{
		bgp.NewPathAttributeOrigin(0), bgp.NewPathAttributeOrigin(2),
		bgp.NewPathAttributeMultiExitDisc(5), bgp.NewPathAttributeMultiExitDisc(6),
		bgp.NewPathAttributeLocalPref(100), cluster, originator,
		bgp.NewPathAttributeUnknown(bgp.BGP_ATTR_FLAG_OPTIONAL, 200, []byte{1}),
		bgp.NewPathAttributeUnknown(bgp.BGP_ATTR_FLAG_OPTIONAL|bgp.BGP_ATTR_FLAG_TRANSITIVE, 201, []byte{2}),
	}
	nlri, _ := bgp.NewIPAddrPrefix(netip.MustParsePrefix("10.1.0.0/24"))
	nh, _ := bgp.NewPathAttributeNextHop(netip.IPv4Unspecified())
	rng := rand.New(rand.NewPCG(41, 42))
	for round := range 500 {
		root := []bgp.PathAttributeInterface{nh}
		for _, i := range rng.Perm(len(pool))[:rng.IntN(5)] {
			if !slices.ContainsFunc(root, func(a bgp.PathAttributeInterface) bool { return a.GetType() == pool[i].GetType() }) {
				root = append(root, pool[i])
			}
		}
		p := NewPath(bgp.RF_IPv4_UC, nil, bgp.PathNLRI{NLRI: nlri}, false, root, time.Now(), false)
		for range rng.IntN(4) {
			p = p.Clone(false)
			for range rng.IntN(3) {
				if a := pool[rng.IntN(len(pool))]; rng.IntN(2) == 0 {
					p.setPathAttr(a)
				} else {
					p.delPathAttr(a.GetType())
				}
			}
		}
		var visited []bgp.PathAttributeInterface
		p.eachPathAttr(func(a bgp.PathAttributeInterface) { visited = append(visited, a) })
		byType := func(a, b bgp.PathAttributeInterface) int { return int(a.GetType()) - int(b.GetType()) }
		want := p.GetPathAttrs()
		slices.SortFunc(visited, byType)
		slices.SortFunc(want, byType)
		require.Equal(t, want, visited, "round %d", round)
	}

	g, info := ebgpPeerInfo(t, ebgpCases[0])
	received := NewPath(bgp.RF_IPv4_UC, nil, bgp.PathNLRI{NLRI: nlri}, false, append([]bgp.PathAttributeInterface{nh}, pool[0], cluster, originator, pool[7], pool[8]), time.Now(), false)
	var kept []bgp.BGPAttrType
	for _, a := range UpdatePathAttrs(logger, g, info, received).GetPathAttrs() {
		kept = append(kept, a.GetType())
	}
	require.Equal(t, []bgp.BGPAttrType{bgp.BGP_ATTR_TYPE_ORIGIN, bgp.BGP_ATTR_TYPE_AS_PATH, bgp.BGP_ATTR_TYPE_NEXT_HOP, 201}, kept)

	own := ownPath(t, "10.1.0.0/24")
	allocs := testing.AllocsPerRun(100, func() { UpdatePathAttrs(logger, g, info, own) })
	t.Logf("%.0f allocations a path", allocs)
	require.LessOrEqual(t, allocs, 2.0, "allocations sending an own path to an eBGP peer: the copy and its attribute list (kbgp patch \"a sent path's attributes in one list\")")
}
