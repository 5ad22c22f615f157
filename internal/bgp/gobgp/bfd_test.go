package gobgp_test

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/osrg/gobgp/v4/pkg/packet/bfd"

	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/bgp/gobgp"
	"kbgp.io/kbgp/internal/testing/gobgptest"
	"kbgp.io/kbgp/internal/testing/wait"
)

// TestBFDStaysDownUntilEstablished shows the GoBGP patch "bfd after established": a
// peer's BFD session leaves Down only once its BGP session is Established. A router's
// BFD end that runs before the BGP session (as FRR's does) gets no answer from the
// speaker while the router does not accept the session, and BFD comes Up after the
// session is Established, without dropping it. Unpatched, the speaker brings BFD Up
// at once; FRR before 10.3 then resets the first BGP session as soon as it is
// Established (see docs/troubleshooting.md). It needs UDP port 3784 on loopback (the
// speaker's BFD listener, RFC 5881).
func TestBFDStaysDownUntilEstablished(t *testing.T) {
	local := netip.MustParseAddr("127.0.0.1")
	remote := netip.MustParseAddr("127.0.0.93")
	up := gobgptest.Start(t, remote, 65010)
	end := startBFDEnd(t, remote)

	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	r, err := gobgp.Factory{}.NewRouter(ctx, bgp.InstanceKey{LocalASN: 65001}, bgp.Global{ASN: 65001, RouterID: netip.MustParseAddr("10.0.0.1")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Stop(context.Background(), false) })
	err = r.AddPeer(ctx, bgp.Peer{
		Name: "up", Address: remote, ASN: 65010, Port: up.Port, LocalAddress: local,
		Families: []bgp.Family{bgp.FamilyIPv4Unicast},
		Timers:   bgp.Timers{ConnectRetry: time.Second, HoldTime: 9 * time.Second, Keepalive: 3 * time.Second},
		BFD:      bgp.BFD{Enabled: true, MinRx: 100 * time.Millisecond, MinTx: 100 * time.Millisecond, DetectMultiplier: 3},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}

	// The router does not know the speaker yet, so no BGP session; its BFD end sends
	// Down every 100 ms meanwhile. GoBGP starts a BFD peer's socket on a one-second
	// tick, so 3 s leave time for two.
	time.Sleep(3 * time.Second)
	if st := bfdStateOf(t, r, remote); st != bgp.BFDDown {
		t.Errorf("before the BGP session, the speaker's BFD state is %q, want Down", st)
	}
	if got := end.received(); len(got) > 0 {
		t.Errorf("before the BGP session, the speaker sent the router's BFD end %d packets (first: %s), want none: it must stay Down until Established", len(got), got[0])
	}
	if !end.upSince().IsZero() {
		t.Errorf("the router's BFD end came Up before the BGP session")
	}

	up.AddNeighbor(t, local, 65001)
	up.WaitEstablished(t, local, 30*time.Second)
	established := time.Now()
	wait.Eventually(t, 10*time.Second, "BFD Up on both ends after Established", func() bool {
		return bfdStateOf(t, r, remote) == bgp.BFDUp && !end.upSince().IsZero()
	})
	t.Logf("BFD Up %v after the BGP session was Established", end.upSince().Sub(established).Round(time.Millisecond))
	if end.upSince().Before(established) {
		t.Errorf("the router's BFD end came Up %v before the BGP session", established.Sub(end.upSince()))
	}
	time.Sleep(time.Second)
	if n := up.Drops(local); n != 0 {
		t.Errorf("the BGP session dropped %d time(s)", n)
	}
}

func bfdStateOf(t *testing.T, r bgp.Router, addr netip.Addr) bgp.BFDState {
	t.Helper()
	peers, err := r.Peers(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range peers {
		if p.Address == addr {
			return p.BFDState
		}
	}
	t.Fatalf("no peer %s", addr)
	return ""
}

// bfdEnd is a router's end of a single-hop BFD session (RFC 5880 6.8.6, without
// authentication or echo), bound to the router's address on port 3784 and sending to
// the speaker's listener on 127.0.0.1:3784 every 100 ms, in every state (as FRR's
// bfdd does), from the moment it starts.
type bfdEnd struct {
	conn *net.UDPConn
	my   uint32

	mu    sync.Mutex
	state bfd.StateType
	your  uint32
	up    time.Time
	got   []string
}

func startBFDEnd(t *testing.T, addr netip.Addr) *bfdEnd {
	t.Helper()
	lc := net.ListenConfig{Control: func(_, _ string, c syscall.RawConn) error {
		// The speaker's listener is bound to *:3784 with SO_REUSEADDR; with it on
		// both, the more specific binding receives what is sent to addr.
		var serr error
		if err := c.Control(func(fd uintptr) {
			serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1)
		}); err != nil {
			return err
		}
		return serr
	}}
	pc, err := lc.ListenPacket(context.Background(), "udp4", netip.AddrPortFrom(addr, 3784).String())
	if err != nil {
		t.Fatalf("BFD end on %s:3784: %v", addr, err)
	}
	e := &bfdEnd{conn: pc.(*net.UDPConn), my: 0x5eed0093, state: bfd.StateDown}
	speaker := net.UDPAddrFromAddrPort(netip.MustParseAddrPort("127.0.0.1:3784"))
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(2)
	t.Cleanup(func() {
		close(done)
		e.conn.Close()
		wg.Wait()
	})
	go func() {
		defer wg.Done()
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				e.send(speaker, false)
			}
		}
	}()
	go func() {
		defer wg.Done()
		buf := make([]byte, 512)
		for {
			n, err := e.conn.Read(buf)
			if err != nil {
				return
			}
			var h bfd.BFDHeader
			if h.UnmarshalBinary(buf[:n]) != nil {
				continue
			}
			e.receive(&h)
			if h.Poll {
				e.send(speaker, true)
			}
		}
	}()
	return e
}

func (e *bfdEnd) send(to *net.UDPAddr, final bool) {
	e.mu.Lock()
	h := bfd.BFDHeader{Version: 1, State: e.state, Final: final, DetectTimeMultiplier: 3, MyDiscriminator: e.my,
		YourDiscriminator: e.your, DesiredMinTxInterval: 100000, RequiredMinRxInterval: 100000}
	if e.state == bfd.StateDown {
		h.YourDiscriminator = 0
	}
	e.mu.Unlock()
	if b, err := h.MarshalBinary(); err == nil {
		_, _ = e.conn.WriteToUDP(b, to)
	}
}

// receive runs RFC 5880's state machine for a packet from the speaker.
func (e *bfdEnd) receive(h *bfd.BFDHeader) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.got = append(e.got, fmt.Sprintf("%s your=%#x", h.State, h.YourDiscriminator))
	if h.YourDiscriminator != 0 && h.YourDiscriminator != e.my {
		return
	}
	e.your = h.MyDiscriminator
	switch {
	case h.State == bfd.StateAdminDown || (e.state == bfd.StateUp && h.State == bfd.StateDown):
		e.state = bfd.StateDown
	case e.state == bfd.StateDown && h.State == bfd.StateDown:
		e.state = bfd.StateInit
	case e.state != bfd.StateUp && (h.State == bfd.StateInit || h.State == bfd.StateUp):
		e.state = bfd.StateUp
		e.up = time.Now()
	}
}

// received lists the packets from the speaker so far ("State your=discriminator").
func (e *bfdEnd) received() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.got...)
}

// upSince is when the end last came Up, zero if it never did.
func (e *bfdEnd) upSince() time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.up
}
