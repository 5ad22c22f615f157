package server

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/osrg/gobgp/v4/internal/pkg/table"
	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// TestWalkRoundIsPackedAsItIs checks kbgp patch "pack a table walk as it is": a round
// of UPDATEs made only of one walk's messages is packed without the search for each
// destination's last action, whose map costs an entry a path. The same paths queued
// as changes are searched; the difference is the map.
func TestWalkRoundIsPackedAsItIs(t *testing.T) {
	const paths = 20_000
	walked := packedBytes(t, paths, &tableSend{})
	changes := packedBytes(t, paths, nil)
	perPath := (float64(changes) - float64(walked)) / paths
	t.Logf("bytes allocated a path: %.0f as changes, %.0f as one walk", float64(changes)/paths, float64(walked)/paths)
	if perPath < 30 {
		t.Errorf("one walk's round allocated %.0f bytes a path less than the same paths as changes, want 30 or more (no search for the last action)", perPath)
	}
}

// packedBytes queues n distinct paths, a message of 1,000 each from walk (nil: as
// changes), then an End-of-RIB, and returns the bytes the process allocated until a
// send loop has sent them all, the least of three runs.
func packedBytes(t *testing.T, n int, walk *tableSend) uint64 {
	t.Helper()
	var msgs []*fsmOutgoingMsg
	for i := 0; i < n; i += 1_000 {
		m := &fsmOutgoingMsg{walk: walk}
		for j := i; j < min(i+1_000, n); j++ {
			m.Paths = append(m.Paths, makePath(t, fmt.Sprintf("10.%d.%d.%d/32", j>>16, j>>8&0xff, j&0xff), "192.168.1.1", 0))
		}
		msgs = append(msgs, m)
	}
	msgs = append(msgs, &fsmOutgoingMsg{Paths: []*table.Path{table.NewEOR(bgp.RF_IPv4_UC)}, walk: walk})

	least := ^uint64(0)
	for range 3 {
		m := NewMockConnection()
		_, h := makePeerAndHandler(m)
		for _, msg := range msgs {
			h.outgoing.In() <- msg
		}
		for h.outgoing.Len() < len(msgs) {
			runtime.Gosched()
		}
		ctx, cancel := context.WithCancel(context.Background())
		wg := &sync.WaitGroup{}
		wg.Add(1)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		go h.sendMessageloop(ctx, m, make(chan fsmStateReason, 3), wg)
		require.Eventually(t, func() bool { return sentEndOfRib(m) }, 10*time.Second, time.Millisecond, "the send loop sent no End-of-RIB")
		runtime.ReadMemStats(&after)
		cancel()
		wg.Wait()
		h.outgoing.Close()
		m.Close()
		least = min(least, after.TotalAlloc-before.TotalAlloc)
	}
	return least
}

// sentEndOfRib reports whether the last message m was sent is an IPv4 End-of-RIB,
// without parsing (which allocates).
func sentEndOfRib(m *MockConnection) bool {
	m.lock.Lock()
	defer m.lock.Unlock()
	if len(m.allMessages) == 0 {
		return false
	}
	last := m.allMessages[len(m.allMessages)-1]
	return len(last) == 23 && last[18] == bgp.BGP_MSG_UPDATE
}

// TestRoundWithChangesKeepsTheLastAction: a round that holds a change besides a
// walk's messages, or the messages of two walks, is searched for each destination's
// last action (kbgp patch "pack a table walk as it is"), so a withdrawal queued after
// the walk sent the path is what the peer gets, not the path after it.
func TestRoundWithChangesKeepsTheLastAction(t *testing.T) {
	for name, second := range map[string]*tableSend{"a change": nil, "another walk": {}} {
		t.Run(name, func(t *testing.T) {
			m := NewMockConnection()
			_, h := makePeerAndHandler(m)
			t.Cleanup(func() { h.outgoing.Close(); m.Close() })
			walk := &tableSend{}
			x := makePath(t, "10.0.0.1/32", "192.168.1.1", 0)
			h.outgoing.In() <- &fsmOutgoingMsg{Paths: []*table.Path{x, makePath(t, "10.0.0.2/32", "192.168.1.1", 0)}, walk: walk}
			h.outgoing.In() <- &fsmOutgoingMsg{Paths: []*table.Path{x.Clone(true)}, walk: second}
			h.outgoing.In() <- &fsmOutgoingMsg{Paths: []*table.Path{makePath(t, "10.0.0.3/32", "192.168.1.1", 0), table.NewEOR(bgp.RF_IPv4_UC)}, walk: walk}
			for h.outgoing.Len() < 3 {
				runtime.Gosched()
			}
			ctx, cancel := context.WithCancel(context.Background())
			wg := &sync.WaitGroup{}
			wg.Add(1)
			go h.sendMessageloop(ctx, m, make(chan fsmStateReason, 3), wg)
			require.Eventually(t, func() bool { return sentEndOfRib(m) }, 10*time.Second, time.Millisecond)
			cancel()
			wg.Wait()

			var announced, withdrawn []string
			for _, msg := range parseBGPUpdates(t, m.GetSentMessages()) {
				u := msg.Body.(*bgp.BGPUpdate)
				for _, n := range u.NLRI {
					announced = append(announced, n.NLRI.String())
				}
				for _, n := range u.WithdrawnRoutes {
					withdrawn = append(withdrawn, n.NLRI.String())
				}
			}
			require.ElementsMatch(t, []string{"10.0.0.2/32", "10.0.0.3/32"}, announced, "announced")
			require.Equal(t, []string{"10.0.0.1/32"}, withdrawn, "withdrawn")
		})
	}
}
