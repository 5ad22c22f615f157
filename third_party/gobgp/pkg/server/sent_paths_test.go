package server

import (
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/osrg/gobgp/v4/internal/pkg/table"
	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// TestSentPathsWithoutAddPathCostNoSet checks kbgp patch "sent paths without a set":
// recording a path sent to a peer without add-path, and its withdrawal, allocates no
// more than the sync.Map entry of its destination. A pathIDSet of its own per
// destination cost every route of every such peer a map (two allocations), 100,000
// of them when kbgp's agent sends its table.
func TestSentPathsWithoutAddPathCostNoSet(t *testing.T) {
	rib := table.NewTableManager(logger, []bgp.Family{bgp.RF_IPv4_UC})
	p := newPeerandInfo(t, 65001, 65002, "10.0.0.2", rib)
	path := makePath(t, "10.1.0.0/24", "10.0.0.1", 0)
	withdrawal := path.Clone(true)

	sent := testing.AllocsPerRun(100, func() {
		p.updateRoutes(path)
		p.updateRoutes(withdrawal)
	})
	var m sync.Map
	key := path.GetDestLocalKey()
	entry := testing.AllocsPerRun(100, func() {
		m.Store(key, struct{}{})
		m.Delete(key)
	})
	require.LessOrEqual(t, sent, entry, "allocations to record a path sent and withdrawn, against a sync.Map entry's")
}

// TestSentPathsKeepEveryPathID checks that a destination's sent path IDs are kept
// whichever way they are held: path ID 0 alone (no add-path), several IDs (add-path
// send), and the one followed by the other.
func TestSentPathsKeepEveryPathID(t *testing.T) {
	rib := table.NewTableManager(logger, []bgp.Family{bgp.RF_IPv4_UC})
	p := newPeerandInfo(t, 65001, 65002, "10.0.0.2", rib)
	addPath := func(on bool) {
		mode := bgp.BGP_ADD_PATH_NONE
		if on {
			mode = bgp.BGP_ADD_PATH_SEND
		}
		p.fsm.familyMap.Store(map[bgp.Family]bgp.BGPAddPathMode{bgp.RF_IPv4_UC: mode})
	}
	count := func() uint8 { return p.getRoutesCount(pathFrom(t, "10.0.0.5")) } // any path to the destination

	// Two paths to one destination from two sources: the table gives them local IDs.
	a, b := pathFrom(t, "10.0.0.3"), pathFrom(t, "10.0.0.4")
	rib.Update(a)
	rib.Update(b)
	require.NotEqual(t, a.LocalID(), b.LocalID())

	addPath(false)
	require.False(t, p.hasPathAlreadyBeenSent(a))
	p.updateRoutes(a)
	p.updateRoutes(b) // the same path ID, 0
	require.True(t, p.hasPathAlreadyBeenSent(a))
	require.True(t, p.hasPathAlreadyBeenSent(b))
	require.Equal(t, uint8(1), count())

	addPath(true)
	p.updateRoutes(a)
	require.True(t, p.hasPathAlreadyBeenSent(a))
	require.False(t, p.hasPathAlreadyBeenSent(b))
	require.Equal(t, uint8(2), count(), "path ID 0 and a's")
	p.updateRoutes(b)
	require.Equal(t, uint8(3), count())

	addPath(false)
	p.updateRoutes(a.Clone(true)) // withdraws path ID 0
	require.Equal(t, uint8(2), count())
	addPath(true)
	p.updateRoutes(a.Clone(true))
	require.False(t, p.hasPathAlreadyBeenSent(a))
	require.True(t, p.hasPathAlreadyBeenSent(b))
	require.Equal(t, uint8(1), count())
	p.updateRoutes(b.Clone(true))
	require.Equal(t, uint8(0), count())

	addPath(false)
	p.updateRoutes(a)
	p.updateRoutes(a.Clone(true))
	require.False(t, p.hasPathAlreadyBeenSent(a))
	require.Equal(t, uint8(0), count())
}

// pathFrom is a path to 10.1.0.0/24 received from the peer at address.
func pathFrom(t *testing.T, address string) *table.Path {
	t.Helper()
	addr := netip.MustParseAddr(address)
	nlri, err := bgp.NewIPAddrPrefix(netip.MustParsePrefix("10.1.0.0/24"))
	require.NoError(t, err)
	nh, err := bgp.NewPathAttributeNextHop(addr)
	require.NoError(t, err)
	attrs := []bgp.PathAttributeInterface{bgp.NewPathAttributeOrigin(0), nh,
		bgp.NewPathAttributeAsPath([]bgp.AsPathParamInterface{bgp.NewAs4PathParam(2, []uint32{65010})})}
	return table.NewPath(bgp.RF_IPv4_UC, &table.PeerInfo{AS: 65010, ID: addr, Address: addr}, bgp.PathNLRI{NLRI: nlri}, false, attrs, time.Now(), false)
}
