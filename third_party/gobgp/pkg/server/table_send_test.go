package server

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	api "github.com/osrg/gobgp/v4/api"
	"github.com/osrg/gobgp/v4/pkg/apiutil"
	"github.com/osrg/gobgp/v4/pkg/config/oc"
	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// tableSendPaths is the size of the tables below: five slices (batches of 1,024
// doubling).
const tableSendPaths = 20_000

// TestTableIsSentInSlices: a session's table is sent a slice per server operation
// (kbgp patch "table send in slices"), so that the server runs other operations,
// and reads the peers' messages, before the whole table is sent. With a slice of
// one batch, an operation queued behind the send sees it partway; the peer gets all
// of it.
func TestTableIsSentInSlices(t *testing.T) {
	s1, s2 := tableSendServers(t)
	version := map[int]uint32{}
	for i := range tableSendPaths {
		version[i] = 1
	}
	addTableSendPaths(t, s1, version)
	require.NoError(t, peerServers(t, context.Background(), []*BgpServer{s1, s2}, []oc.AfiSafiType{oc.AFI_SAFI_TYPE_IPV4_UNICAST}))

	addr := netip.MustParseAddr("127.0.0.1")
	for deadline := time.Now().Add(30 * time.Second); ; {
		var partway, sent bool
		require.NoError(t, s1.mgmtOperation(func() error {
			p := s1.neighborMap[addr]
			pending, inSend := p.tablePending.Load(), p.tableSend.Load() != nil
			partway = inSend && !pending
			sent = p.State() == bgp.BGP_FSM_ESTABLISHED && !inSend && !pending
			return nil
		}, false))
		if partway {
			break
		}
		if sent {
			t.Fatal("the whole table was sent in one server operation: no other ran before it was sent")
		}
		if time.Now().After(deadline) {
			t.Fatal("no table sent in 30 s")
		}
	}
	waitTableSendPaths(t, s2, version)
}

// TestChangesDuringSlicedSendReachThePeer: paths added, replaced and withdrawn
// while the table is sent a slice at a time reach the peer as they end up, whether
// the walk had been past them (sent at once) or not (sent by the walk).
func TestChangesDuringSlicedSendReachThePeer(t *testing.T) {
	s1, s2 := tableSendServers(t)
	version := map[int]uint32{}
	for i := range tableSendPaths {
		version[i] = 1
	}
	addTableSendPaths(t, s1, version)
	require.NoError(t, peerServers(t, context.Background(), []*BgpServer{s1, s2}, []oc.AfiSafiType{oc.AFI_SAFI_TYPE_IPV4_UNICAST}))

	rng := rand.New(rand.NewPCG(3, 4))
	for range 2_000 {
		i := rng.IntN(tableSendPaths * 5 / 4)
		if v, ok := version[i]; ok && rng.IntN(2) == 0 {
			require.NoError(t, s1.DeletePath(apiutil.DeletePathRequest{Paths: []*apiutil.Path{tableSendPath(i, v)}}))
			delete(version, i)
			continue
		}
		version[i]++
		addTableSendPaths(t, s1, map[int]uint32{i: version[i]})
	}
	waitTableSendPaths(t, s2, version)
}

// tableSendServers are two servers to peer, stopped when the test ends; until then
// a table is sent a batch per slice.
func tableSendServers(t *testing.T) (*BgpServer, *BgpServer) {
	sliceTime := tableSliceTime
	tableSliceTime = 0
	t.Cleanup(func() { tableSliceTime = sliceTime })
	s1 := runNewServer(t, 1, "1.1.1.1", 10179)
	t.Cleanup(func() { _ = s1.StopBgp(context.Background(), &api.StopBgpRequest{}) })
	s2 := runNewServer(t, 2, "2.2.2.2", 20179)
	t.Cleanup(func() { _ = s2.StopBgp(context.Background(), &api.StopBgpRequest{}) })
	return s1, s2
}

// tableSendPath is path i, a /32, with its version as its one community.
func tableSendPath(i int, version uint32) *apiutil.Path {
	nlri, _ := bgp.NewIPAddrPrefix(netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}), 32))
	nh, _ := bgp.NewPathAttributeNextHop(netip.MustParseAddr("10.255.0.1"))
	return &apiutil.Path{Family: bgp.RF_IPv4_UC, Nlri: nlri, Attrs: []bgp.PathAttributeInterface{
		bgp.NewPathAttributeOrigin(0), nh, bgp.NewPathAttributeCommunities([]uint32{version}),
	}}
}

func addTableSendPaths(t *testing.T, s *BgpServer, version map[int]uint32) {
	t.Helper()
	paths := make([]*apiutil.Path, 0, len(version))
	for i, v := range version {
		paths = append(paths, tableSendPath(i, v))
	}
	_, err := s.AddPath(apiutil.AddPathRequest{Paths: paths})
	require.NoError(t, err)
}

// waitTableSendPaths waits until s holds exactly the paths of version, each with
// its version.
func waitTableSendPaths(t *testing.T, s *BgpServer, version map[int]uint32) {
	t.Helper()
	want := map[string]uint32{}
	for i, v := range version {
		want[tableSendPath(i, v).Nlri.String()] = v
	}
	var diff string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		got := map[string]uint32{}
		require.NoError(t, s.ListPath(apiutil.ListPathRequest{TableType: api.TableType_TABLE_TYPE_GLOBAL, Family: bgp.RF_IPv4_UC}, func(prefix bgp.NLRI, paths []*apiutil.Path) {
			for _, a := range paths[0].Attrs {
				if c, ok := a.(*bgp.PathAttributeCommunities); ok && len(c.Value) == 1 {
					got[prefix.String()] = c.Value[0]
				}
			}
		}))
		diff = tableDiff(want, got)
		if diff == "" {
			return
		}
	}
	t.Fatalf("the peer's table is not the sender's after 30 s: %s", diff)
}

// tableDiff says how got differs from want (up to three prefixes), "" when it does not.
func tableDiff(want, got map[string]uint32) string {
	var out []string
	for p, v := range want {
		if g, ok := got[p]; !ok || g != v {
			out = append(out, fmt.Sprintf("%s: version %d, want %d", p, g, v))
		}
	}
	for p, g := range got {
		if _, ok := want[p]; !ok {
			out = append(out, fmt.Sprintf("%s: version %d, want none", p, g))
		}
	}
	if len(out) == 0 {
		return ""
	}
	return fmt.Sprintf("%d prefixes differ, e.g. %v", len(out), out[:min(3, len(out))])
}

// TestSlicesStartBeforeTheStateIsStored: the FSM stores Established only after the
// callback that starts the slices has returned, so the first slice may run while
// the peer's state still reads the one before. It must send the table all the
// same: stopped there, it left the peer pending, advertised nothing, for good.
func TestSlicesStartBeforeTheStateIsStored(t *testing.T) {
	s1, _ := tableSendServers(t)
	version := map[int]uint32{}
	for i := range 3_000 {
		version[i] = 1
	}
	addTableSendPaths(t, s1, version)
	require.NoError(t, s1.AddPeer(context.Background(), &api.AddPeerRequest{Peer: &api.Peer{
		Conf:      &api.PeerConf{NeighborAddress: "127.0.0.1", PeerAsn: 2},
		Transport: &api.Transport{PassiveMode: true},
	}}))
	var p *peer
	var ts *tableSend
	require.NoError(t, s1.mgmtOperation(func() error {
		p = s1.neighborMap[netip.MustParseAddr("127.0.0.1")]
		ts = newTableSend(p, []bgp.Family{bgp.RF_IPv4_UC})
		p.tableSend.Store(ts)
		p.tablePending.Store(true)
		return nil
	}, false))
	require.NotEqual(t, bgp.BGP_FSM_ESTABLISHED, p.State())

	s1.sendTableInSlices(p, ts)
	require.False(t, p.tablePending.Load(), "the peer is still pending: it would be advertised nothing")
	require.Nil(t, p.tableSend.Load(), "the table was not sent to its end")
}

// TestSlicesEndWhenTheServerStops: a slice that cannot run because the server has
// stopped ends the slices; retried, it spun for good.
func TestSlicesEndWhenTheServerStops(t *testing.T) {
	s := runNewServer(t, 1, "1.1.1.1", -1)
	require.NoError(t, s.AddPeer(context.Background(), &api.AddPeerRequest{Peer: &api.Peer{
		Conf:      &api.PeerConf{NeighborAddress: "127.0.0.1", PeerAsn: 2},
		Transport: &api.Transport{PassiveMode: true},
	}}))
	var p *peer
	require.NoError(t, s.mgmtOperation(func() error {
		p = s.neighborMap[netip.MustParseAddr("127.0.0.1")]
		return nil
	}, false))
	ts := newTableSend(p, []bgp.Family{bgp.RF_IPv4_UC})
	p.tableSend.Store(ts)
	require.NoError(t, s.StopBgp(context.Background(), &api.StopBgpRequest{}))

	done := make(chan struct{})
	go func() {
		s.sendTableInSlices(p, ts)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the slices still run 5 s after the server stopped")
	}
}
