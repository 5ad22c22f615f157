package speakers

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"reflect"
	"slices"

	"kbgp.io/kbgp/internal/bgp"
)

// ApplyExports applies changes to the exports of running peers — the hot path of a
// Service event — at the cost of the change, not of everything the speakers send: the
// changes are diffed against what each peer last applied and each speaker gets them in
// one ApplyExports batch.
//
// A change for a speaker or peer that is not running is skipped: it was not applied,
// and the next Apply brings it up with its whole export. A failed call is returned; the
// caller then falls back to a full Apply, which sends whatever did not count as applied.
func (s *Set) ApplyExports(ctx context.Context, changes bgp.ExportChanges) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for _, key := range sortedKeys(changes) {
		inst, ok := s.instances[key]
		if !ok {
			continue
		}
		if err := applyExports(ctx, inst, inst.exportUpdates(changes[key])); err != nil {
			errs = append(errs, fmt.Errorf("instance %s: %w", key, err))
		}
	}
	return errors.Join(errs...)
}

// exportUpdates turns the changes into one update per running peer, holding only what
// differs from the peer's applied export. Several changes of one peer apply in order.
func (inst *instance) exportUpdates(changes []bgp.ExportChange) []exportUpdate {
	byAddr := make(map[netip.Addr]string, len(inst.peers))
	for name, ap := range inst.peers {
		byAddr[ap.peer.Address] = name
	}
	// next is, per peer and prefix, the attributes it gets (nil: it is removed).
	next := map[string]map[netip.Prefix]*bgp.PathAttributes{}
	for _, ch := range changes {
		name, running := byAddr[ch.Peer]
		if !running {
			continue
		}
		if next[name] == nil {
			next[name] = map[netip.Prefix]*bgp.PathAttributes{}
		}
		for _, p := range ch.Set {
			next[name][p.Prefix] = &p.Attributes
		}
		for _, p := range ch.Remove {
			next[name][p] = nil
		}
	}
	var out []exportUpdate
	for _, name := range slices.Sorted(maps.Keys(next)) {
		have := inst.peers[name]
		u := exportUpdate{name: name, change: bgp.ExportChange{Peer: have.peer.Address}}
		for p, attrs := range next[name] {
			old, had := have.export.get(p)
			switch {
			case attrs == nil && had:
				u.change.Remove = append(u.change.Remove, p)
			case attrs != nil && (!had || !reflect.DeepEqual(old, *attrs)):
				u.change.Set = append(u.change.Set, bgp.Path{Prefix: p, Attributes: *attrs})
			}
		}
		if u.sorted() {
			out = append(out, u)
		}
	}
	return out
}
