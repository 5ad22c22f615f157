package speakers

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"sync"
	"time"

	"kbgp.io/kbgp/internal/bgp"
)

// DefaultCallTimeout bounds every speaker call. GoBGP ignores contexts, so a wedged
// server would otherwise hold the speaker set — and status, which reads through it —
// for ever. The bound is generous: the largest legitimate call, the first export of a
// million routes, takes seconds.
const DefaultCallTimeout = 2 * time.Minute

// ErrCallTimeout is returned by a speaker call that did not return within its bound.
var ErrCallTimeout = errors.New("the speaker did not answer in time")

// stuckCalls records the speaker calls that outlived their bound and have not returned
// yet: a stuck call means the speaker is wedged, which only a restart of the agent cures
// (graceful restart keeps the routes meanwhile), so liveness reports it.
type stuckCalls struct {
	mu    sync.Mutex
	next  uint64
	calls map[uint64]stuckCall
}

type stuckCall struct {
	what  string
	since time.Time
}

// oldest describes the longest-stuck call, "" when none is.
func (s *stuckCalls) oldest(now time.Time) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var found *stuckCall
	for _, c := range s.calls {
		if found == nil || c.since.Before(found.since) {
			found = &c
		}
	}
	if found == nil {
		return ""
	}
	return fmt.Sprintf("%s has not returned for %s", found.what, now.Sub(found.since).Round(time.Second))
}

// bounded runs call in its own goroutine and waits for it at most timeout. A call that
// outlives the bound returns ErrCallTimeout and is recorded as stuck until it returns.
func bounded[T any](s *stuckCalls, timeout time.Duration, what string, call func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	start := time.Now()
	var id uint64
	var stuck bool
	var mu sync.Mutex // guards stuck and id between the waiter and the call's goroutine
	go func() {
		v, err := call()
		done <- result{v, err}
		mu.Lock()
		defer mu.Unlock()
		if stuck {
			s.mu.Lock()
			delete(s.calls, id)
			s.mu.Unlock()
		}
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case r := <-done:
		return r.v, r.err
	case <-timer.C:
	}
	mu.Lock()
	defer mu.Unlock()
	select {
	case r := <-done: // returned just now
		return r.v, r.err
	default:
	}
	stuck = true
	s.mu.Lock()
	if s.calls == nil {
		s.calls = map[uint64]stuckCall{}
	}
	s.next++
	id = s.next
	s.calls[id] = stuckCall{what: what, since: start}
	s.mu.Unlock()
	var zero T
	return zero, fmt.Errorf("%s: %w (%s)", what, ErrCallTimeout, timeout)
}

// boundedRouter is a bgp.Router whose every call is bounded.
type boundedRouter struct {
	router  bgp.Router
	key     bgp.InstanceKey
	timeout time.Duration
	stuck   *stuckCalls
}

var _ bgp.Router = boundedRouter{}

func (b boundedRouter) do(what string, call func() error) error {
	_, err := bounded(b.stuck, b.timeout, fmt.Sprintf("%s of instance %s", what, b.key), func() (struct{}, error) {
		return struct{}{}, call()
	})
	return err
}

func (b boundedRouter) AddPeer(ctx context.Context, p bgp.Peer, export []bgp.Path) error {
	return b.do("AddPeer "+p.Address.String(), func() error { return b.router.AddPeer(ctx, p, export) })
}

func (b boundedRouter) UpdatePeer(ctx context.Context, p bgp.Peer) error {
	return b.do("UpdatePeer "+p.Address.String(), func() error { return b.router.UpdatePeer(ctx, p) })
}

func (b boundedRouter) DeletePeer(ctx context.Context, addr netip.Addr) error {
	return b.do("DeletePeer "+addr.String(), func() error { return b.router.DeletePeer(ctx, addr) })
}

func (b boundedRouter) ApplyExports(ctx context.Context, changes []bgp.ExportChange) error {
	return b.do("ApplyExports", func() error { return b.router.ApplyExports(ctx, changes) })
}

func (b boundedRouter) Peers(ctx context.Context) ([]bgp.PeerStatus, error) {
	return bounded(b.stuck, b.timeout, "Peers of instance "+b.key.String(), func() ([]bgp.PeerStatus, error) { return b.router.Peers(ctx) })
}

func (b boundedRouter) SetBMP(ctx context.Context, collectors []bgp.BMPCollector) error {
	return b.do("SetBMP", func() error { return b.router.SetBMP(ctx, collectors) })
}

func (b boundedRouter) BMP(ctx context.Context) ([]bgp.BMPStatus, error) {
	return bounded(b.stuck, b.timeout, "BMP of instance "+b.key.String(), func() ([]bgp.BMPStatus, error) { return b.router.BMP(ctx) })
}

func (b boundedRouter) Stop(ctx context.Context, gracefulRestart bool) error {
	return b.do("Stop", func() error { return b.router.Stop(ctx, gracefulRestart) })
}
