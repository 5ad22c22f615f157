package server

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/osrg/gobgp/v4/internal/pkg/table"
	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// TestSentPathsCostLittlePerDestination checks kbgp patch "sent paths in plain maps":
// a peer's record of what it was sent lasts as long as its session and holds every
// route, so it must cost little per destination: 127 bytes with a sync.Map, 63 with
// the sharded maps to any, 42 with the set of destinations sent path ID 0 alone
// (kbgp patch "sent paths a set without path IDs"), less with IPv4 destinations in
// eight bytes (kbgp patch "sent IPv4 destinations in eight bytes"). Sending a
// recorded destination again allocates nothing.
func TestSentPathsCostLittlePerDestination(t *testing.T) {
	const n = 50_000
	rib := table.NewTableManager(logger, []bgp.Family{bgp.RF_IPv4_UC})
	p := newPeerandInfo(t, 65001, 65002, "10.0.0.2", rib)
	paths := make([]*table.Path, n)
	for i := range paths {
		paths[i] = makePath(t, fmt.Sprintf("10.%d.%d.%d/32", 100+i>>16, (i>>8)&255, i&255), "10.0.0.1", 0)
	}

	before := liveHeap()
	for _, path := range paths {
		p.updateRoutes(path)
	}
	perDestination := float64(liveHeap()-before) / n
	require.Equal(t, n, p.sentPaths.Len())
	t.Logf("%.1f bytes a destination", perDestination)
	require.Less(t, perDestination, 30.0, "bytes a destination sent")

	again := testing.AllocsPerRun(10, func() {
		for _, path := range paths[:1000] {
			p.updateRoutes(path)
		}
	})
	require.Zero(t, again, "allocations to send 1,000 recorded destinations again")

	p.resetAdvertisedRoutes()
	require.Zero(t, p.sentPaths.Len())
	runtime.KeepAlive(paths)
}

// liveHeap is the heap in use after a collection.
func liveHeap() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
