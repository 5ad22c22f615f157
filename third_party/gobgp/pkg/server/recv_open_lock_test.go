package server

import (
	"net/netip"
	"sync"
	"testing"

	"github.com/osrg/gobgp/v4/internal/pkg/table"
	apiutil "github.com/osrg/gobgp/v4/pkg/apiutil"
	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// TestRecvOpenIsReadUnderTheLock runs what the FSM does when an OPEN arrives (it
// sets recvOpen under the FSM's lock) beside the server's two readers of it, the
// peer state event and the neighbor's configuration. Under -race it fails when a
// reader takes recvOpen after releasing the lock.
func TestRecvOpenIsReadUnderTheLock(t *testing.T) {
	s := NewBgpServer()
	p := newPeerandInfo(t, 65001, 65002, "10.0.0.1", table.NewTableManager(logger, []bgp.Family{bgp.RF_IPv4_UC}))
	newOpen := func() *bgp.BGPMessage {
		m, err := bgp.NewBGPOpenMessage(65002, 90, netip.MustParseAddr("10.0.0.1"), nil)
		if err != nil {
			t.Error(err)
		}
		return m
	}
	p.fsm.lock.Lock()
	p.fsm.recvOpen = newOpen()
	p.fsm.lock.Unlock()
	p.fsm.state.Store(bgp.BGP_FSM_ESTABLISHED)

	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the FSM: a new session's OPEN, again and again
		defer wg.Done()
		for range 2000 {
			p.fsm.lock.Lock()
			p.fsm.recvOpen = newOpen()
			p.fsm.lock.Unlock()
		}
	}()
	for range 2000 {
		_ = newWatchEventPeer(p, nil, bgp.BGP_FSM_ESTABLISHED, bgp.BGP_FSM_OPENCONFIRM, apiutil.PEER_EVENT_STATE)
		_ = s.toConfig(p, false)
	}
	wg.Wait()
}
