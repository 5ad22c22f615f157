package server

import (
	"context"
	"net"
	"testing"
	"time"

	api "github.com/osrg/gobgp/v4/api"
)

// TestFirstDialIsAtOnce checks that a new active peer dials as soon as it is added,
// not after the connect retry wait (at least 1.5 s, the jittered minimum), and that
// a refused first attempt is retried after that wait, not at once.
func TestFirstDialIsAtOnce(t *testing.T) {
	ctx := context.Background()
	s := runNewServer(t, 65001, "1.1.1.1", -1)
	defer s.StopBgp(ctx, &api.StopBgpRequest{})

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan time.Time, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- time.Now()
			c.Close() // refused at once: the peer must wait before the next attempt
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port

	added := time.Now()
	if err := s.AddPeer(ctx, &api.AddPeerRequest{Peer: &api.Peer{
		Conf:      &api.PeerConf{NeighborAddress: "127.0.0.1", PeerAsn: 65002},
		Transport: &api.Transport{RemotePort: uint32(port)},
		Timers:    &api.Timers{Config: &api.TimersConfig{ConnectRetry: 5}},
	}}); err != nil {
		t.Fatal(err)
	}
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
