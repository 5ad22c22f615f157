// Package bgpfake is an in-memory bgp.RouterFactory for tests of the code above the
// speaker (speaker set, agent). It has no wire: every configured peer is Established at
// once, with the timers it was configured with. Tests read back what each peer is sent
// — with the attributes of that peer's export —, every ApplyExports batch, and how many
// sessions each peer has had, which is how they prove that an edit did not reset one.
//
// It follows the bgp.Router contract: each peer is sent exactly its export.
//
// Unlike in-process GoBGP speakers it is race-free, so the packages that use it keep
// the race detector on.
package bgpfake

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"sync"
	"time"

	"kbgp.io/kbgp/internal/bgp"
)

// Factory starts fake routers and remembers the latest one per instance.
type Factory struct {
	// Faults makes calls of the factory and its routers fail or hang.
	Faults Faults

	mu      sync.Mutex
	routers map[bgp.InstanceKey]*Router
	started map[bgp.InstanceKey]int
}

// NewRouter implements bgp.RouterFactory.
func (f *Factory) NewRouter(_ context.Context, key bgp.InstanceKey, g bgp.Global, notify func()) (bgp.Router, error) {
	if err := f.Faults.inject(OpNewRouter); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.routers == nil {
		f.routers = map[bgp.InstanceKey]*Router{}
		f.started = map[bgp.InstanceKey]int{}
	}
	r := &Router{Global: g, notify: notify, peers: map[netip.Addr]*peer{}, faults: &f.Faults}
	f.routers[key] = r
	f.started[key]++
	return r, nil
}

// Router returns the latest router started for key, or nil.
func (f *Factory) Router(key bgp.InstanceKey) *Router {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.routers[key]
}

// Started counts the routers started for key: more than one means the instance was
// recreated.
func (f *Factory) Started(key bgp.InstanceKey) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.started[key]
}

// Router is a fake speaker. Global is what it was started with.
type Router struct {
	Global bgp.Global
	notify func()
	faults *Faults

	mu       sync.Mutex
	peers    map[netip.Addr]*peer
	sessions map[netip.Addr]int
	// batches records the changes of each ApplyExports call.
	batches [][]bgp.ExportChange
	// bmp are the collectors of the last SetBMP; bmpCalls counts the calls.
	bmp      []bgp.BMPCollector
	bmpCalls int
	stopped  bool
	graceful bool
}

type peer struct {
	config bgp.Peer
	// sent is what the peer is sent.
	sent  map[netip.Prefix]bgp.PathAttributes
	state bgp.SessionState
	since time.Time
	down  string
	drops uint64
}

// AddPeer implements bgp.Router; the session is Established at once.
func (r *Router) AddPeer(_ context.Context, p bgp.Peer, export []bgp.Path) error {
	if err := r.faults.inject(OpAddPeer); err != nil {
		return err
	}
	r.mu.Lock()
	if _, ok := r.peers[p.Address]; ok {
		r.mu.Unlock()
		return fmt.Errorf("peer %s already exists", p.Address)
	}
	np := &peer{config: p, sent: map[netip.Prefix]bgp.PathAttributes{}, state: bgp.StateEstablished, since: time.Now()}
	for _, e := range export {
		np.sent[e.Prefix] = e.Attributes
	}
	r.peers[p.Address] = np
	if r.sessions == nil {
		r.sessions = map[netip.Addr]int{}
	}
	r.sessions[p.Address]++
	r.mu.Unlock()
	r.notify()
	return nil
}

// UpdatePeer implements bgp.Router: the configuration changes, the session stays.
func (r *Router) UpdatePeer(_ context.Context, p bgp.Peer) error {
	if err := r.faults.inject(OpUpdatePeer); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	cur, ok := r.peers[p.Address]
	if !ok {
		return fmt.Errorf("peer %s not found", p.Address)
	}
	cur.config = p
	return nil
}

// DeletePeer implements bgp.Router.
func (r *Router) DeletePeer(_ context.Context, addr netip.Addr) error {
	if err := r.faults.inject(OpDeletePeer); err != nil {
		return err
	}
	r.mu.Lock()
	if _, ok := r.peers[addr]; !ok {
		r.mu.Unlock()
		return fmt.Errorf("peer %s not found", addr)
	}
	delete(r.peers, addr)
	r.mu.Unlock()
	r.notify()
	return nil
}

// ApplyExports implements bgp.Router. A batch naming a peer that does not exist, or a
// peer twice, changes nothing and fails.
func (r *Router) ApplyExports(_ context.Context, changes []bgp.ExportChange) error {
	if err := r.faults.inject(OpApplyExports); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	seen := map[netip.Addr]bool{}
	for _, ch := range changes {
		if _, ok := r.peers[ch.Peer]; !ok {
			return fmt.Errorf("peer %s not found", ch.Peer)
		}
		if seen[ch.Peer] {
			return fmt.Errorf("peer %s: more than one export change in a batch", ch.Peer)
		}
		seen[ch.Peer] = true
	}
	r.batches = append(r.batches, slices.Clone(changes))
	for _, ch := range changes {
		p := r.peers[ch.Peer]
		for _, e := range ch.Set {
			p.sent[e.Prefix] = e.Attributes
		}
		for _, pfx := range ch.Remove {
			delete(p.sent, pfx)
		}
	}
	return nil
}

// Peers implements bgp.Router: a peer is Established, with its configured timers,
// unless SetState said otherwise.
func (r *Router) Peers(context.Context) ([]bgp.PeerStatus, error) {
	if err := r.faults.inject(OpPeers); err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]bgp.PeerStatus, 0, len(r.peers))
	for addr, p := range r.peers {
		st := bgp.PeerStatus{Address: addr, State: p.state, LastDownReason: p.down, Drops: p.drops}
		if p.state == bgp.StateEstablished {
			st.EstablishedSince, st.HoldTime, st.Keepalive = p.since, p.config.Timers.HoldTime, p.config.Timers.Keepalive
		}
		out = append(out, st)
	}
	return out, nil
}

// SetBMP implements bgp.Router.
func (r *Router) SetBMP(_ context.Context, collectors []bgp.BMPCollector) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bmp = slices.Clone(collectors)
	r.bmpCalls++
	return nil
}

// BMP implements bgp.Router: every collector is up.
func (r *Router) BMP(context.Context) ([]bgp.BMPStatus, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]bgp.BMPStatus, 0, len(r.bmp))
	for _, c := range r.bmp {
		out = append(out, bgp.BMPStatus{Address: c.Address, Port: c.Port, Up: true})
	}
	return out, nil
}

// BMPCollectors returns the collectors of the last SetBMP and how many calls there were.
func (r *Router) BMPCollectors() ([]bgp.BMPCollector, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.bmp), r.bmpCalls
}

// SetState moves a peer's session to state, as a real speaker's watch would, and
// notifies. Leaving Established records downReason as the last down reason.
func (r *Router) SetState(addr netip.Addr, state bgp.SessionState, downReason string) {
	r.mu.Lock()
	p, ok := r.peers[addr]
	if ok {
		if p.state == bgp.StateEstablished && state != bgp.StateEstablished {
			p.down = downReason
			p.drops++
		}
		if state == bgp.StateEstablished && p.state != bgp.StateEstablished {
			p.since = time.Now()
		}
		p.state = state
	}
	r.mu.Unlock()
	if ok {
		r.notify()
	}
}

// Stop implements bgp.Router.
func (r *Router) Stop(_ context.Context, gracefulRestart bool) error {
	if err := r.faults.inject(OpStop); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stopped, r.graceful = true, gracefulRestart
	r.peers = map[netip.Addr]*peer{}
	return nil
}

// Peer returns the configuration a peer runs with.
func (r *Router) Peer(addr netip.Addr) (bgp.Peer, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, ok := r.peers[addr]
	if !ok {
		return bgp.Peer{}, false
	}
	return p.config, true
}

// Sessions counts the sessions a peer has had: 1 after it was added, one more for every
// reset.
func (r *Router) Sessions(addr netip.Addr) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sessions[addr]
}

// Advertised returns what the peer has been sent, with the attributes it was sent
// with, sorted by prefix.
func (r *Router) Advertised(addr netip.Addr) []bgp.Path {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, ok := r.peers[addr]
	if !ok {
		return nil
	}
	var out []bgp.Path
	for pfx, attrs := range p.sent {
		out = append(out, bgp.Path{Prefix: pfx, Attributes: attrs})
	}
	slices.SortFunc(out, func(a, b bgp.Path) int { return a.Prefix.Addr().Compare(b.Prefix.Addr()) })
	return out
}

// ExportBatches returns the changes of every ApplyExports call so far, one slice per
// call, and forgets them: tests check that changes are batched and minimal.
func (r *Router) ExportBatches() [][]bgp.ExportChange {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.batches
	r.batches = nil
	return out
}

// Stopped reports whether Stop was called, and whether it was a graceful restart.
func (r *Router) Stopped() (stopped, graceful bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stopped, r.graceful
}
