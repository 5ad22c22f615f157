package server

import (
	"net/netip"
	"sync"
)

// leavingPeers holds, by address, when each stopped peer's FSM handler ends, until
// a peer added at that address takes it: that peer's first dial waits for it, so
// the new session's OPEN never overtakes the old session's Cease.
type leavingPeers struct {
	mu   sync.Mutex
	done map[netip.Addr]<-chan struct{}
}

// leave records a stopped peer's handler, and forgets the handlers that have ended.
func (l *leavingPeers) leave(addr netip.Addr, done <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for a, d := range l.done {
		select {
		case <-d:
			delete(l.done, a)
		default:
		}
	}
	if l.done == nil {
		l.done = map[netip.Addr]<-chan struct{}{}
	}
	l.done[addr] = done
}

// take returns the handler a new peer at addr waits for (nil: none), and forgets it.
func (l *leavingPeers) take(addr netip.Addr) <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	done := l.done[addr]
	delete(l.done, addr)
	return done
}
