package table

import (
	"math/rand/v2"
	"net/netip"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// TestPathAttrsMergedAsBefore checks kbgp patch "path attributes merged in place":
// over random chains of derived paths that set and delete attributes, GetPathAttrs
// returns what upstream's merge (getPathAttrsUpstream, below) returns.
func TestPathAttrsMergedAsBefore(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 2_000 {
		path := randomPathChain(rng)
		require.Equal(t, getPathAttrsUpstream(path), path.GetPathAttrs(), "chain %d", i)
	}
}

// TestPathAttrsMergeAllocatesTheListOnly: merging a derived path's attributes
// allocates the list it returns and nothing else (kbgp patch "path attributes merged
// in place"); upstream made a bitmap and a map a call as well.
func TestPathAttrsMergeAllocatesTheListOnly(t *testing.T) {
	nlri, _ := bgp.NewIPAddrPrefix(netip.MustParsePrefix("10.0.0.1/32"))
	nexthop, _ := bgp.NewPathAttributeNextHop(netip.MustParseAddr("10.255.0.1"))
	root := NewPath(bgp.RF_IPv4_UC, nil, bgp.PathNLRI{NLRI: nlri}, false, []bgp.PathAttributeInterface{bgp.NewPathAttributeOrigin(0), nexthop}, time.Now(), false)
	// As an eBGP session's export: the AS_PATH prepended, a community set, the next
	// hop replaced.
	exported := root.Clone(false)
	exported.setPathAttr(bgp.NewPathAttributeAsPath([]bgp.AsPathParamInterface{bgp.NewAs4PathParam(bgp.BGP_ASPATH_ATTR_TYPE_SEQ, []uint32{65001})}))
	exported = exported.Clone(false)
	exported.setPathAttr(bgp.NewPathAttributeCommunities([]uint32{65001<<16 | 1}))
	selfHop, _ := bgp.NewPathAttributeNextHop(netip.MustParseAddr("10.255.0.2"))
	exported.setPathAttr(selfHop)
	require.Len(t, exported.GetPathAttrs(), 4)
	if n := testing.AllocsPerRun(100, func() { exported.GetPathAttrs() }); n > 1 {
		t.Errorf("GetPathAttrs allocated %.0f times a call, want 1 (the list)", n)
	}
}

// randomPathChain is a root path and up to three paths derived from it, each setting
// and deleting some of six attribute types.
func randomPathChain(rng *rand.Rand) *Path {
	types := []bgp.BGPAttrType{bgp.BGP_ATTR_TYPE_ORIGIN, bgp.BGP_ATTR_TYPE_AS_PATH, bgp.BGP_ATTR_TYPE_NEXT_HOP,
		bgp.BGP_ATTR_TYPE_MULTI_EXIT_DISC, bgp.BGP_ATTR_TYPE_LOCAL_PREF, bgp.BGP_ATTR_TYPE_COMMUNITIES}
	attr := func(typ bgp.BGPAttrType) bgp.PathAttributeInterface {
		v := rng.Uint32()
		switch typ {
		case bgp.BGP_ATTR_TYPE_ORIGIN:
			return bgp.NewPathAttributeOrigin(uint8(v % 3))
		case bgp.BGP_ATTR_TYPE_AS_PATH:
			return bgp.NewPathAttributeAsPath([]bgp.AsPathParamInterface{bgp.NewAs4PathParam(bgp.BGP_ASPATH_ATTR_TYPE_SEQ, []uint32{v})})
		case bgp.BGP_ATTR_TYPE_NEXT_HOP:
			a, _ := bgp.NewPathAttributeNextHop(netip.AddrFrom4([4]byte{10, byte(v), byte(v >> 8), 1}))
			return a
		case bgp.BGP_ATTR_TYPE_MULTI_EXIT_DISC:
			return bgp.NewPathAttributeMultiExitDisc(v)
		case bgp.BGP_ATTR_TYPE_LOCAL_PREF:
			return bgp.NewPathAttributeLocalPref(v)
		default:
			return bgp.NewPathAttributeCommunities([]uint32{v})
		}
	}
	rootAttrs := []bgp.PathAttributeInterface{} // not nil: NewPath takes nil for a withdrawal
	for _, typ := range types {
		if rng.IntN(2) == 0 {
			rootAttrs = append(rootAttrs, attr(typ))
		}
	}
	nlri, _ := bgp.NewIPAddrPrefix(netip.MustParsePrefix("10.0.0.1/32"))
	path := NewPath(bgp.RF_IPv4_UC, nil, bgp.PathNLRI{NLRI: nlri}, false, rootAttrs, time.Now(), false)
	for range rng.IntN(4) {
		path = path.Clone(false)
		for range rng.IntN(4) {
			typ := types[rng.IntN(len(types))]
			if rng.IntN(3) == 0 {
				path.delPathAttr(typ)
			} else {
				path.setPathAttr(attr(typ))
			}
		}
	}
	return path
}

// PathAttrs is the sort.Interface upstream's merge sorts with; the patched merge does
// not use it.
type PathAttrs []bgp.PathAttributeInterface

func (a PathAttrs) Len() int {
	return len(a)
}

func (a PathAttrs) Swap(i, j int) {
	a[i], a[j] = a[j], a[i]
}

func (a PathAttrs) Less(i, j int) bool {
	return a[i].GetType() < a[j].GetType()
}

// getPathAttrsUpstream is GetPathAttrs as GoBGP v4.8.0 has it, the reference for
// TestPathAttrsMergedAsBefore.
func getPathAttrsUpstream(path *Path) []bgp.PathAttributeInterface {
	deleted := NewBitmap(255)
	modified := make(map[uint]bgp.PathAttributeInterface)
	p := path
	for {
		for t := range uint(256) {
			if p.dels != nil && p.dels.has(bgp.BGPAttrType(t)) {
				deleted.Flag(t)
			}
		}
		if p.parent == nil {
			list := PathAttrs(make([]bgp.PathAttributeInterface, 0, len(p.pathAttrs)))
			for _, a := range p.pathAttrs {
				typ := uint(a.GetType())
				if m, ok := modified[typ]; ok {
					list = append(list, m)
					delete(modified, typ)
				} else if !deleted.GetFlag(typ) {
					list = append(list, a)
				}
			}
			if len(modified) > 0 {
				for _, m := range modified {
					list = append(list, m)
				}
				sort.Sort(list)
			}
			return list
		}
		for _, a := range p.pathAttrs {
			typ := uint(a.GetType())
			if _, ok := modified[typ]; !deleted.GetFlag(typ) && !ok {
				modified[typ] = a
			}
		}
		p = p.parent
	}
}
