package gobgp

import (
	"context"
	"log/slog"
	"net/netip"
	"slices"
	"testing"
	"time"

	api "github.com/osrg/gobgp/v4/api"
	"github.com/osrg/gobgp/v4/pkg/apiutil"
	gobgppacket "github.com/osrg/gobgp/v4/pkg/packet/bgp"

	"kbgp.io/kbgp/internal/bgp"
)

// holdDownLab feeds a router the watch events of one peer, on a clock of its own.
type holdDownLab struct {
	t    *testing.T
	r    *router
	addr netip.Addr
	at   time.Time
}

func newHoldDownLab(t *testing.T) *holdDownLab {
	addr := netip.MustParseAddr("10.0.0.2")
	r := &router{logger: slog.New(slog.DiscardHandler), notify: func() {}, sessions: map[netip.Addr]*session{addr: {}}}
	t.Cleanup(r.stopHoldDowns) // the retry would call GoBGP, which these tests do not run
	return &holdDownLab{t: t, r: r, addr: addr, at: time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)}
}

func (l *holdDownLab) event(after time.Duration, state gobgppacket.FSMState, admin api.PeerState_AdminState) {
	l.at = l.at.Add(after)
	l.r.recordState(apiutil.PeerState{NeighborAddress: l.addr, SessionState: state, AdminState: admin}, l.at)
}

// session is one retry: the peer comes back, stays Established for up, then exceeds
// its limit. It returns the hold-down that follows (0: none).
func (l *holdDownLab) session(up time.Duration) time.Duration {
	l.event(time.Second, gobgppacket.BGP_FSM_ACTIVE, api.PeerState_ADMIN_STATE_UP)
	l.event(time.Second, gobgppacket.BGP_FSM_ESTABLISHED, api.PeerState_ADMIN_STATE_UP)
	l.event(up, gobgppacket.BGP_FSM_IDLE, api.PeerState_ADMIN_STATE_PFX_CT)
	return l.release()
}

// release ends a hold-down as enable does, without GoBGP, and lets its time pass.
func (l *holdDownLab) release() time.Duration {
	s := l.r.sessions[l.addr]
	if s.held == nil {
		return 0
	}
	d := s.held.backoff
	s.held.retry.Stop()
	s.held, s.enabledAt = nil, l.at
	l.at = l.at.Add(d)
	return d
}

func TestHoldDownBacksOff(t *testing.T) {
	l := newHoldDownLab(t)
	var got []time.Duration
	for range 7 {
		got = append(got, l.session(2*time.Second))
	}
	want := []time.Duration{30 * time.Second, time.Minute, 2 * time.Minute, 4 * time.Minute, 8 * time.Minute, 10 * time.Minute, 10 * time.Minute}
	if !slices.Equal(got, want) {
		t.Errorf("a peer that exceeds its limit after every retry is held down %v, want %v", got, want)
	}
	// A session that stayed within its limits for the longest hold-down starts afresh.
	if got := l.session(holdDownMax); got != holdDownFirst {
		t.Errorf("after a long session the hold-down is %s, want %s", got, holdDownFirst)
	}
	if n := l.r.sessions[l.addr].holdDowns; n != 8 {
		t.Errorf("%d hold-downs counted, want 8", n)
	}
}

func TestHoldDownIgnoresTheStaleAdminStateAfterEnable(t *testing.T) {
	l := newHoldDownLab(t)
	if l.session(time.Second) == 0 {
		t.Fatal("exceeding the limit did not hold the peer down")
	}
	// GoBGP applies EnablePeer asynchronously: a listing right after it still reads
	// PFX_CT, which is no new hold-down.
	s := l.r.sessions[l.addr]
	l.at = s.enabledAt.Add(time.Second)
	l.r.noteAdminState(l.addr, s, api.PeerState_ADMIN_STATE_PFX_CT, l.at)
	if s.held != nil {
		t.Fatal("a stale PFX_CT right after enabling held the peer down again")
	}
	// Once the peer was seen enabled, the next PFX_CT is a hold-down, however soon.
	if l.session(time.Second) == 0 {
		t.Fatal("exceeding again right after the retry did not hold the peer down")
	}
	// Without any event in between, a PFX_CT that outlasts the settling time is one too
	// (EnablePeer got lost).
	l.at = s.enabledAt.Add(enableSettle)
	l.r.noteAdminState(l.addr, s, api.PeerState_ADMIN_STATE_PFX_CT, l.at)
	if s.held == nil {
		t.Fatal("a peer still PFX_CT after the settling time is not held down")
	}
}

func TestHeldDownDetail(t *testing.T) {
	l := newHoldDownLab(t)
	s := l.r.sessions[l.addr]
	s.limits = map[bgp.Family]uint32{bgp.FamilyIPv6Unicast: 50, bgp.FamilyIPv4Unicast: 1000}
	l.event(time.Second, gobgppacket.BGP_FSM_ESTABLISHED, api.PeerState_ADMIN_STATE_UP)
	l.event(time.Second, gobgppacket.BGP_FSM_IDLE, api.PeerState_ADMIN_STATE_PFX_CT)
	want := "the peer sent more routes than maxPrefixes (ipv4-unicast 1000, ipv6-unicast 50) allows; " +
		"session held down since 2026-11-24T10:00:02Z, retried at 2026-11-24T10:00:32Z"
	if got := heldDownDetail(s); got != want {
		t.Errorf("detail = %q, want %q", got, want)
	}
}

// ShortenHoldDown makes hold-downs last first, doubling to max, until the test ends.
func ShortenHoldDown(t *testing.T, first, max time.Duration) {
	oldFirst, oldMax := holdDownFirst, holdDownMax
	holdDownFirst, holdDownMax = first, max
	t.Cleanup(func() { holdDownFirst, holdDownMax = oldFirst, oldMax })
}

// TestEnableLooksAgainOnceSettled: a PFX_CT read right after a retry is ignored as
// possibly stale, so the retry has the state looked at again once that while is over;
// a peer held down again then is found although GoBGP reports no further change.
func TestEnableLooksAgainOnceSettled(t *testing.T) {
	settle := enableSettle
	enableSettle = 50 * time.Millisecond
	t.Cleanup(func() { enableSettle = settle })
	looks := make(chan struct{}, 10)
	br, err := Factory{}.NewRouter(t.Context(), bgp.InstanceKey{LocalASN: 65001}, bgp.Global{ASN: 65001, RouterID: netip.MustParseAddr("10.0.0.1")},
		func() { looks <- struct{}{} })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = br.Stop(context.Background(), false) })
	r := br.(*router)
	addr := netip.MustParseAddr("10.0.0.2")
	s := &session{}
	r.mu.Lock()
	r.sessions[addr] = s
	r.noteAdminState(addr, s, api.PeerState_ADMIN_STATE_PFX_CT, time.Now())
	r.mu.Unlock()

	r.enable(addr, "test") // GoBGP does not know the peer: the request fails, which changes nothing here
	<-looks                // enable's own notification
	r.mu.Lock()
	r.noteAdminState(addr, s, api.PeerState_ADMIN_STATE_PFX_CT, time.Now())
	r.mu.Unlock()
	if s.held != nil {
		t.Fatal("a PFX_CT right after the retry held the peer down")
	}
	select {
	case <-looks:
	case <-time.After(5 * time.Second):
		t.Fatal("the state is not looked at again after the retry")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.noteAdminState(addr, s, api.PeerState_ADMIN_STATE_PFX_CT, time.Now())
	if s.held == nil {
		t.Fatal("looked at again, a peer still PFX_CT is not held down")
	}
}
