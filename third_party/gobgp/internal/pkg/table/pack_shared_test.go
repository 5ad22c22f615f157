package table

import (
	"fmt"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// sharedAttrsPaths is n IPv4 paths from firstHost on that all hold the very values
// of attrs, as a speaker's own paths to one eBGP peer do.
func sharedAttrsPaths(firstHost, n int, attrs []bgp.PathAttributeInterface) []*Path {
	paths := make([]*Path, 0, n)
	for i := firstHost; i < firstHost+n; i++ {
		nlri, _ := bgp.NewIPAddrPrefix(netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}), 32))
		paths = append(paths, NewPath(bgp.RF_IPv4_UC, nil, bgp.PathNLRI{NLRI: nlri}, false, attrs, time.Now(), false))
	}
	return paths
}

func ownEBGPAttrs(community uint32) []bgp.PathAttributeInterface {
	nexthop, _ := bgp.NewPathAttributeNextHop(netip.MustParseAddr("10.0.0.1"))
	return []bgp.PathAttributeInterface{
		bgp.NewPathAttributeOrigin(0),
		bgp.NewPathAttributeAsPath([]bgp.AsPathParamInterface{bgp.NewAs4PathParam(bgp.BGP_ASPATH_ATTR_TYPE_SEQ, []uint32{65001})}),
		nexthop,
		bgp.NewPathAttributeCommunities([]uint32{community}),
	}
}

// TestPackingBySharedAttributes checks kbgp patch "pack by shared attributes":
// paths that hold the values of the path before them join its UPDATE without
// serializing them, and the packing is still by the attributes' bytes: paths with
// equal attributes in values of their own join the same UPDATE, paths with other
// attributes, between them or not, get one of their own.
func TestPackingBySharedAttributes(t *testing.T) {
	shared, equal, other := ownEBGPAttrs(65001<<16|100), ownEBGPAttrs(65001<<16|100), ownEBGPAttrs(65001<<16|200)
	var paths []*Path
	paths = append(paths, sharedAttrsPaths(0, 3, shared)...)
	paths = append(paths, sharedAttrsPaths(3, 2, other)...)
	paths = append(paths, sharedAttrsPaths(5, 2, shared)...)
	paths = append(paths, sharedAttrsPaths(7, 2, equal)...)
	paths = append(paths, sharedAttrsPaths(9, 1, other)...)
	paths = append(paths, sharedAttrsPaths(10, 1, shared)...)

	byCommunity := map[string][]string{}
	for _, m := range CreateUpdateMsgFromPaths(paths) {
		u := m.Body.(*bgp.BGPUpdate)
		var community string
		for _, a := range u.PathAttributes {
			if c, ok := a.(*bgp.PathAttributeCommunities); ok {
				community = fmt.Sprintf("%d:%d", c.Value[0]>>16, c.Value[0]&0xffff)
			}
		}
		if _, dup := byCommunity[community]; dup {
			t.Errorf("two UPDATEs carry community %s", community)
		}
		for _, n := range u.NLRI {
			byCommunity[community] = append(byCommunity[community], n.NLRI.String())
		}
	}
	want := map[string][]string{
		"65001:100": {"10.0.0.0/32", "10.0.0.1/32", "10.0.0.2/32", "10.0.0.5/32", "10.0.0.6/32", "10.0.0.7/32", "10.0.0.8/32", "10.0.0.10/32"},
		"65001:200": {"10.0.0.3/32", "10.0.0.4/32", "10.0.0.9/32"},
	}
	if len(byCommunity) != len(want) {
		t.Fatalf("UPDATEs by community %v, want %v", byCommunity, want)
	}
	for c, nlris := range want {
		if !slices.Equal(byCommunity[c], nlris) {
			t.Errorf("community %s: NLRIs %v, want %v", c, byCommunity[c], nlris)
		}
	}
}

// TestPackingSharedAttributesAllocatesLittle: packing paths that share their
// attribute values costs the cage's growth, not a serialization of every path's
// attributes (nor, with kbgp patch "pack a shared derivation without a list", the
// attribute list GetPathAttrs makes).
func TestPackingSharedAttributesAllocatesLittle(t *testing.T) {
	const n = 1000
	paths := sharedAttrsPaths(0, n, ownEBGPAttrs(65001<<16|100))
	perPath := testing.AllocsPerRun(10, func() { CreateUpdateMsgFromDistinctPaths(paths) }) / n
	t.Logf("%.2f allocations a path", perPath)
	if perPath > 1.5 {
		t.Errorf("packing %d paths with shared attributes: %.2f allocations a path, want at most 1.5", n, perPath)
	}
}

func BenchmarkPackSharedAttributes(b *testing.B) {
	for _, n := range []int{1000, 100_000} {
		paths := sharedAttrsPaths(0, n, ownEBGPAttrs(65001<<16|100))
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				CreateUpdateMsgFromDistinctPaths(paths)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/path")
		})
	}
}
