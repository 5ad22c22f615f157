package server

import (
	"context"
	"net"
	"net/netip"
	"strconv"
	"testing"
	"time"

	api "github.com/osrg/gobgp/v4/api"
)

// acceptTimes listens on loopback and sends the time of every connection it
// accepts; with closeAtOnce it closes each at once (a peer that refuses the session), else the
// connections are kept open until the test ends.
func acceptTimes(t *testing.T, closeAtOnce bool) (port int, accepted <-chan time.Time) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	ch := make(chan time.Time, 8)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			ch <- time.Now()
			if closeAtOnce {
				c.Close()
				continue
			}
			t.Cleanup(func() { c.Close() })
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port, ch
}

func addLoopbackPeer(t *testing.T, s *BgpServer, port int) {
	t.Helper()
	if err := s.AddPeer(context.Background(), &api.AddPeerRequest{Peer: &api.Peer{
		Conf:      &api.PeerConf{NeighborAddress: "127.0.0.1", PeerAsn: 65002},
		Transport: &api.Transport{RemotePort: uint32(port)},
		Timers:    &api.Timers{Config: &api.TimersConfig{ConnectRetry: 5}},
	}}); err != nil {
		t.Fatal(err)
	}
}

// TestFirstDialIsAtOnce checks that a new active peer dials as soon as it is added,
// not after the connect retry wait (at least 1.5 s, the jittered minimum), and that
// a session the peer refuses is not dialled again at once.
func TestFirstDialIsAtOnce(t *testing.T) {
	s := runNewServer(t, 65001, "1.1.1.1", -1)
	defer s.StopBgp(context.Background(), &api.StopBgpRequest{})
	port, accepted := acceptTimes(t, true)

	added := time.Now()
	addLoopbackPeer(t, s, port)
	var first time.Time
	select {
	case first = <-accepted:
	case <-time.After(5 * time.Second):
		t.Fatal("no connection in 5 s")
	}
	if wait := first.Sub(added); wait > time.Second {
		t.Fatalf("first dial %v after the peer was added, want it at once", wait.Round(time.Millisecond))
	}
	select {
	case second := <-accepted:
		t.Fatalf("dialed again %v after a refused first attempt, want the retry wait", second.Sub(first).Round(time.Millisecond))
	case <-time.After(time.Second):
	}
}

// TestRefusedFirstDialIsRetriedAfterTheMinimum checks that a first dial the peer
// refuses (nothing listens yet) is retried after the minimum wait (1.5-2 s), as the
// first attempt was before, and not after the configured connect retry (5 s here).
func TestRefusedFirstDialIsRetriedAfterTheMinimum(t *testing.T) {
	s := runNewServer(t, 65001, "1.1.1.1", -1)
	defer s.StopBgp(context.Background(), &api.StopBgpRequest{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close() // refused until the listener below

	added := time.Now()
	addLoopbackPeer(t, s, port)
	time.Sleep(500 * time.Millisecond)
	ln, err = net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan time.Time, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			got <- time.Now()
			c.Close()
		}
	}()
	select {
	case at := <-got:
		if wait := at.Sub(added); wait > 3*time.Second {
			t.Fatalf("second dial %v after the peer was added, want the minimum retry wait (1.5-2 s)", wait.Round(time.Millisecond))
		}
	case <-time.After(6 * time.Second):
		t.Fatal("no second dial in 6 s")
	}
}

// TestReplacedPeerDialsOnceTheOldHandlerEnds checks that a peer added at the address
// of one just deleted dials only once the old peer's handler has ended (its Cease
// sent), and then after the minimum wait rather than at once, and that deleting a
// peer records that handler.
func TestReplacedPeerDialsOnceTheOldHandlerEnds(t *testing.T) {
	s := runNewServer(t, 65001, "1.1.1.1", -1)
	defer s.StopBgp(context.Background(), &api.StopBgpRequest{})
	port, accepted := acceptTimes(t, false)
	addr := netip.MustParseAddr("127.0.0.1")

	addLoopbackPeer(t, s, port)
	select {
	case <-accepted:
	case <-time.After(5 * time.Second):
		t.Fatal("no connection in 5 s")
	}
	if err := s.DeletePeer(context.Background(), &api.DeletePeerRequest{Address: addr.String()}); err != nil {
		t.Fatal(err)
	}
	old := s.leaving.take(addr)
	if old == nil {
		t.Fatal("deleting the peer recorded no handler for the next peer at its address to wait for")
	}
	select {
	case <-old:
	case <-time.After(5 * time.Second):
		t.Fatal("the deleted peer's handler did not end in 5 s")
	}

	// A handler that has not ended yet: the new peer must hold its first dial.
	ending := make(chan struct{})
	s.leaving.leave(addr, ending)
	addLoopbackPeer(t, s, port)
	select {
	case at := <-accepted:
		t.Fatalf("the new peer dialled (%v ago) before the old handler ended", time.Since(at).Round(time.Millisecond))
	case <-time.After(500 * time.Millisecond):
	}
	ended := time.Now()
	close(ending)
	select {
	case at := <-accepted:
		if wait := at.Sub(ended); wait < time.Second {
			t.Fatalf("the new peer dialled %v after the old handler ended, want the minimum wait (1.5-2 s)", wait.Round(time.Millisecond))
		}
	case <-time.After(3 * time.Second):
		t.Fatal("no dial within 3 s of the old handler's end")
	}
}
