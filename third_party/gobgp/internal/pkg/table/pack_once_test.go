package table

import (
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// countedCommunities is a COMMUNITIES attribute that counts how often it is
// serialized.
type countedCommunities struct {
	*bgp.PathAttributeCommunities
	serialized *int
}

func (c countedCommunities) Serialize(options ...*bgp.MarshallingOption) ([]byte, error) {
	*c.serialized++
	return c.PathAttributeCommunities.Serialize(options...)
}

// TestPackingSerializesAttributesOnce checks kbgp patch "pack serialize once":
// packing paths whose attribute hash is not cached (as every path an export policy
// changed) serializes each path's attributes once, not once for the hash and again
// for the comparison, and still packs paths with equal attributes into one UPDATE.
func TestPackingSerializesAttributesOnce(t *testing.T) {
	const n = 100
	serialized := 0
	nexthop, _ := bgp.NewPathAttributeNextHop(netip.MustParseAddr("10.0.0.1"))
	paths := make([]*Path, 0, n)
	for i := range n {
		nlri, _ := bgp.NewIPAddrPrefix(netip.MustParsePrefix(fmt.Sprintf("10.1.%d.%d/32", i/256, i%256)))
		attrs := []bgp.PathAttributeInterface{
			bgp.NewPathAttributeOrigin(0),
			bgp.NewPathAttributeAsPath([]bgp.AsPathParamInterface{bgp.NewAs4PathParam(bgp.BGP_ASPATH_ATTR_TYPE_SEQ, []uint32{65001})}),
			nexthop,
			countedCommunities{bgp.NewPathAttributeCommunities([]uint32{65001<<16 | 100}), &serialized},
		}
		paths = append(paths, NewPath(bgp.RF_IPv4_UC, nil, bgp.PathNLRI{NLRI: nlri}, false, attrs, time.Now(), false))
	}

	msgs := CreateUpdateMsgFromPaths(paths)

	if serialized != n {
		t.Errorf("packing %d paths serialized their attributes %d times, want %d (once a path)", n, serialized, n)
	}
	if len(msgs) != 1 {
		t.Fatalf("%d paths with equal attributes packed into %d UPDATEs, want 1", n, len(msgs))
	}
	if got := len(msgs[0].Body.(*bgp.BGPUpdate).NLRI); got != n {
		t.Errorf("the UPDATE carries %d NLRIs, want %d", got, n)
	}
}
