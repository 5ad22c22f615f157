package table

import (
	"log/slog"
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// TestStaleAllWhileListed marks a peer's Adj-RIB-In stale, as its session goroutine
// does when a graceful-restart peer goes down, while the paths listed before are read,
// as ListPath does outside the table's locks. The stale paths are clones sharing the
// listed paths' origin info, where the flag lives (kbgp patch "atomic stale flag"):
// under -race this fails without it.
func TestStaleAllWhileListed(t *testing.T) {
	families := []bgp.Family{bgp.RF_IPv4_UC}
	adj := NewAdjRib(slog.Default(), families)
	attrs := []bgp.PathAttributeInterface{bgp.NewPathAttributeOrigin(0)}
	nlri, _ := bgp.NewIPAddrPrefix(netip.MustParsePrefix("10.0.0.0/24"))
	adj.Update([]*Path{NewPath(bgp.RF_IPv4_UC, &PeerInfo{}, bgp.PathNLRI{NLRI: nlri}, false, attrs, time.Now(), false)})
	listed := adj.PathList(families, false)

	marked := make(chan struct{})
	go func() {
		defer close(marked)
		adj.StaleAll(families)
	}()
	for range 1000 {
		_ = listed[0].IsStale()
	}
	<-marked
	assert.True(t, listed[0].IsStale(), "a stale clone marks its origin stale")
}
