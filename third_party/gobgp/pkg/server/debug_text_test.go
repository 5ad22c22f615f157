package server

import (
	"net/netip"
	"testing"
	"time"

	"github.com/osrg/gobgp/v4/internal/pkg/table"
	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// TestPathBackToItsPeerIsNotFormatted checks kbgp patch "no text for debug off":
// a path offered back to the peer it came from (each path a peer sends is) is
// dropped without formatting it for a debug log that is off. The text cost more
// CPU than the rest of the check: about 0.3 s for 100,000 paths received (kbgp's
// TestB4Speaker, on a loaded machine).
func TestPathBackToItsPeerIsNotFormatted(t *testing.T) {
	rib := table.NewTableManager(logger, []bgp.Family{bgp.RF_IPv4_UC})
	p := newPeerandInfo(t, 65000, 65001, "192.168.0.1", rib)
	nlri, _ := bgp.NewIPAddrPrefix(netip.MustParsePrefix("10.10.10.0/24"))
	attrs := []bgp.PathAttributeInterface{bgp.NewPathAttributeAsPath([]bgp.AsPathParamInterface{bgp.NewAs4PathParam(2, []uint32{65001})})}
	path := table.NewPath(bgp.RF_IPv4_UC, p.peerInfo.Load(), bgp.PathNLRI{NLRI: nlri}, false, attrs, time.Now(), false)

	allocs := testing.AllocsPerRun(100, func() {
		if filterpath(p, path, nil) != nil {
			t.Fatal("a path was offered back to the peer it came from")
		}
	})
	if allocs != 0 {
		t.Errorf("dropping a path offered back to its peer allocated %.0f times, want 0 (no debug text with debug off)", allocs)
	}
}
