package server

import (
	"net/netip"
	"slices"
	"time"

	"github.com/osrg/gobgp/v4/internal/pkg/table"
	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// tableSend is how far the table sent to a session has got, in the order it is
// walked: its families in turn, each a table shard at a time (kbgp patch "table
// send in slices"). Its fields change only under the server's write lock.
type tableSend struct {
	rfList   []bgp.Family // the families whose End-of-RIBs close the table
	families []bgp.Family // the table's families, as the local RIB names them
	family   int          // the family being walked, an index in families
	shard    int          // the shard of that family walked next
	size     int          // the paths of the next batch
}

func newTableSend(peer *peer, rfList []bgp.Family) *tableSend {
	return &tableSend{rfList: rfList, families: peer.toGlobalFamilies(rfList), size: sendBatchFirst}
}

// passed reports whether the walk has been past path's destination, which then
// takes the changes made to it since; until then the walk will send it as it is.
// An End-of-RIB is passed once the whole table is: the walk sends it last.
func (ts *tableSend) passed(path *table.Path) bool {
	if path.IsEOR() {
		return ts.family >= len(ts.families)
	}
	i := slices.Index(ts.families, path.GetFamily())
	switch {
	case i < 0:
		return true
	case i != ts.family:
		return i < ts.family
	default:
		return table.ShardOf(path.GetNlri()) < ts.shard
	}
}

// passedOnly are the paths the walk has been past (paths itself when that is all of them).
func (ts *tableSend) passedOnly(paths []*table.Path) []*table.Path {
	for i, p := range paths {
		if !ts.passed(p) {
			out := slices.Clone(paths[:i])
			for _, p := range paths[i+1:] {
				if ts.passed(p) {
					out = append(out, p)
				}
			}
			return out
		}
	}
	return paths
}

// tableSliceTime is how long one server operation sends a table before it lets the
// server take its other work: a third of the shortest hold time (3 s), so that a
// peer's messages are read in time however large the table.
var tableSliceTime = time.Second

// sendTableInSlices sends a session's table (ts, stored in peer.tableSend at
// Established) from the server loop, a slice of whole batches per server operation
// (tableSliceTime), so that the server takes its other work between two: the
// session's own received messages among them. Sent in one operation, a table of a
// million paths held the server's lock for tens of seconds, in which no message of
// any peer was read and the session's hold timer ran out. Meanwhile a change is sent to the peer at once only
// where the walk has been past it (tableSend.passed, checked in
// sendfsmOutgoingMsg); elsewhere the walk sends it when it gets there. The slices
// stop when the peer is gone, its session down (handleFSMMessage clears
// peer.tableSend), a new session has a table of its own, or the server stops.
func (s *BgpServer) sendTableInSlices(peer *peer, ts *tableSend) {
	addr := netip.MustParseAddr(peer.ID())
	for more := true; more; {
		err := s.mgmtOperation(func() error {
			// Not the session's state: the FSM stores Established only after
			// the callback that started these slices has returned.
			if s.neighborMap[addr] != peer || peer.tableSend.Load() != ts {
				peer.tableSend.CompareAndSwap(ts, nil)
				more = false
				return nil
			}
			peer.tablePending.Store(false)
			peer.routeRefreshInProgress.Lock()
			defer peer.routeRefreshInProgress.Unlock()
			if more = s.sendTable(peer, ts, true); !more {
				peer.tableSend.Store(nil)
			}
			return nil
		}, false)
		if err != nil {
			return // the server stopped: the operation never ran
		}
	}
}
