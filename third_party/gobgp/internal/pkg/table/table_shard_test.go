package table

import (
	"net/netip"
	"runtime"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// TestADestinationAKey checks kbgp patch "a destination a key": 100,000
// destinations cost a table at most 40 bytes each beyond themselves (26 with the
// patch, 58 with a list a key), and two prefixes planted under one key are found,
// listed and removed each on its own, the second taking the first's place.
func TestADestinationAKey(t *testing.T) {
	const n = 100_000
	nlris := make([]bgp.NLRI, n)
	dests := make([]*destination, n)
	for i := range n {
		nlris[i], _ = bgp.NewIPAddrPrefix(netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}), 32))
		dests[i] = newDestination(nlris[i], 0)
	}
	tbl := NewTable(logger, bgp.RF_IPv4_UC)
	before := liveHeapOfTable()
	for _, d := range dests {
		tbl.setDestination(d)
	}
	perDest := (float64(liveHeapOfTable()) - float64(before)) / n
	runtime.KeepAlive(dests)
	t.Logf("%.1f bytes a destination beyond itself", perDest)
	require.LessOrEqual(t, perDest, 40.0, "bytes a destination beyond itself")
	require.Len(t, tbl.GetDestinations(), n)

	a, _ := bgp.NewIPAddrPrefix(netip.MustParsePrefix("10.200.0.1/32"))
	b, _ := bgp.NewIPAddrPrefix(netip.MustParsePrefix("10.200.0.2/32"))
	planted := NewTable(logger, bgp.RF_IPv4_UC)
	key := tableKey(a)
	shard := planted.destinations.getShard(a)
	da, db := newDestination(a, 0), newDestination(b, 0)
	require.False(t, shard.put(key, da))
	require.True(t, shard.put(key, db), "a second prefix under one key")
	require.False(t, shard.put(key, newDestination(b, 0)), "the second prefix again")
	require.Same(t, da, shard.find(key, a))
	require.Equal(t, b.String(), shard.find(key, b).nlri.String())
	require.Equal(t, 1, shard.collisions())
	var listed []string
	for d := range shard.all() {
		listed = append(listed, d.nlri.String())
	}
	slices.Sort(listed)
	require.Equal(t, []string{a.String(), b.String()}, listed)

	shard.remove(key, a)
	require.Nil(t, shard.find(key, a))
	require.Equal(t, b.String(), shard.mp[key].nlri.String(), "the second takes the first's place")
	require.Equal(t, 0, shard.collisions())
	shard.remove(key, b)
	require.Empty(t, shard.mp)
	require.Empty(t, shard.more)
}

// liveHeapOfTable is the heap in use after a collection.
func liveHeapOfTable() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
