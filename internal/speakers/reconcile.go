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

// reconcilePeers brings the peers of one running speaker to want, in an order fixed
// here:
//
//  1. Peers that are gone, and those whose change needs a new session, are deleted
//     before any peer is added, so a renamed peer with the same address never collides
//     with its old self.
//  2. New peers (and the reset ones) are added, each with its whole export, which the
//     router puts in place before the session can come up: the first UPDATEs carry it.
//  3. The other peers get their in-place configuration changes, then the changes of
//     their exports in one ApplyExports batch.
//
// A failure is recorded for that peer and the others go on.
func (s *Set) reconcilePeers(ctx context.Context, key bgp.InstanceKey, inst *instance, want map[string]bgp.DesiredPeer) error {
	failed := map[string]error{}
	deleted := s.deletePeers(ctx, key, inst, want, failed)
	added := map[string]bool{}
	for _, name := range slices.Sorted(maps.Keys(want)) {
		if _, running := inst.peers[name]; !running && failed[name] == nil {
			failed[name] = s.addPeer(ctx, key, inst, want[name])
			added[name] = true
		}
	}
	var updates []exportUpdate
	for _, name := range slices.Sorted(maps.Keys(want)) {
		have, running := inst.peers[name]
		if !running || added[name] || failed[name] != nil {
			continue
		}
		if !reflect.DeepEqual(have.peer, want[name].Peer) {
			if err := inst.router.UpdatePeer(ctx, want[name].Peer); err != nil {
				failed[name] = err
				continue
			}
			have.peer = want[name].Peer
			inst.peers[name] = have
		}
		if u, ok := diffExport(name, have, want[name].Export); ok {
			updates = append(updates, u)
		}
	}
	if err := applyExports(ctx, inst, updates); err != nil {
		for _, u := range updates {
			failed[u.name] = err
		}
	}
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(want)) {
		errs = append(errs, s.record(key, name, failed[name]))
	}
	for _, name := range deleted {
		errs = append(errs, s.record(key, name, failed[name]))
	}
	return errors.Join(errs...)
}

// deletePeers deletes the peers that are gone and those whose session must be reset
// (see sessionResetReason), and returns the names of the gone ones.
func (s *Set) deletePeers(ctx context.Context, key bgp.InstanceKey, inst *instance, want map[string]bgp.DesiredPeer, failed map[string]error) (gone []string) {
	for _, name := range slices.Sorted(maps.Keys(inst.peers)) {
		have := inst.peers[name]
		w, ok := want[name]
		reason := "peer removed"
		if ok {
			if reason = sessionResetReason(have.peer, w.Peer); reason == "" {
				continue
			}
		} else {
			gone = append(gone, name)
		}
		s.logger.Info("deleting peer", "instance", key.String(), "peer", name, "reason", reason)
		if err := inst.router.DeletePeer(ctx, have.peer.Address); err != nil {
			failed[name] = err
			continue
		}
		delete(inst.peers, name)
	}
	return gone
}

// record keeps the last error of a peer for status, or clears it, and returns it
// named.
func (s *Set) record(key bgp.InstanceKey, name string, err error) error {
	ref := PeerRef{Instance: key, Name: name}
	if err == nil {
		delete(s.peerErrors, ref)
		return nil
	}
	s.peerErrors[ref] = err
	return fmt.Errorf("instance %s peer %s: %w", key, name, err)
}

func (s *Set) addPeer(ctx context.Context, key bgp.InstanceKey, inst *instance, p bgp.DesiredPeer) error {
	s.logger.Info("adding peer", "instance", key.String(), "peer", p.Name, "address", p.Address.String(), "peerASN", p.ASN)
	export := make([]bgp.Path, 0, len(p.Export))
	for pfx, attrs := range p.Export {
		export = append(export, bgp.Path{Prefix: pfx, Attributes: attrs})
	}
	slices.SortFunc(export, comparePaths)
	if err := inst.router.AddPeer(ctx, p.Peer, export); err != nil {
		return err
	}
	inst.peers[p.Name] = appliedPeer{peer: p.Peer, export: exportBookOf(p.Export)}
	return nil
}

// exportUpdate is the change of one running peer's export, by name.
type exportUpdate struct {
	name   string
	change bgp.ExportChange
}

// diffExport returns the change from the peer's applied export to want: the prefixes
// new in want or carrying other attributes there, and those want no longer has.
func diffExport(name string, have appliedPeer, want map[netip.Prefix]bgp.PathAttributes) (exportUpdate, bool) {
	u := exportUpdate{name: name, change: bgp.ExportChange{Peer: have.peer.Address}}
	for p, a := range want {
		if old, ok := have.export.get(p); !ok || !reflect.DeepEqual(old, a) {
			u.change.Set = append(u.change.Set, bgp.Path{Prefix: p, Attributes: a})
		}
	}
	for p := range have.export.prefixes.All() {
		if _, ok := want[p]; !ok {
			u.change.Remove = append(u.change.Remove, p)
		}
	}
	return u, u.sorted()
}

// sorted sorts the change and reports whether it changes anything.
func (u exportUpdate) sorted() bool {
	slices.SortFunc(u.change.Set, comparePaths)
	slices.SortFunc(u.change.Remove, bgp.ComparePrefix)
	return len(u.change.Set)+len(u.change.Remove) > 0
}

// exportBatch is the most prefixes applyExports sets in one call of the router's
// ApplyExports. A change of a whole table (a peer's export after a full build, 100k+
// routes) goes in batches, so that what the router and GoBGP build for each prefix
// while applying it (the policy edit, the reference counts, the API paths) is held for
// one batch at a time, not for the table: the heap's peak sets how far it grows before
// the next collection, and so the agent's resident memory. Removals are not batched:
// withdrawing a prefix another peer still gets re-runs the peer's whole export policy
// (see the adapter's reexport), once per call.
const exportBatch = 8192

// applyExports sends the export changes of one speaker's peers, in batches of at most
// exportBatch prefixes to set, and records each batch as applied once the router has
// applied it, at the cost of the changes. On error the failed batch and those after it
// do not count as applied, so the next Apply sends them again.
func applyExports(ctx context.Context, inst *instance, updates []exportUpdate) error {
	for len(updates) > 0 {
		var batch []exportUpdate
		batch, updates = nextExportBatch(updates, exportBatch)
		if err := applyExportBatch(ctx, inst, batch); err != nil {
			return err
		}
	}
	return nil
}

// nextExportBatch splits off the first n prefixes to set of updates, with every
// removal among them, and returns them and what is left (nil when nothing is). An
// update is split where the batch ends; a peer has one update in a batch.
func nextExportBatch(updates []exportUpdate, n int) (batch, rest []exportUpdate) {
	for i, u := range updates {
		if len(u.change.Set) > n {
			head, tail := u, exportUpdate{name: u.name, change: bgp.ExportChange{Peer: u.change.Peer}}
			head.change.Set, tail.change.Set = u.change.Set[:n:n], u.change.Set[n:]
			batch, rest = append(batch, head), append(rest, tail)
			for _, later := range updates[i+1:] {
				// Their removals go now; what they set waits.
				now, after := later, later
				now.change.Set, after.change.Remove = nil, nil
				if len(now.change.Remove) > 0 {
					batch = append(batch, now)
				}
				if len(after.change.Set) > 0 {
					rest = append(rest, after)
				}
			}
			return batch, rest
		}
		n -= len(u.change.Set)
		batch = append(batch, u)
	}
	return batch, nil
}

// applyExportBatch sends the export changes of one speaker's peers in one batch and
// records them as applied.
func applyExportBatch(ctx context.Context, inst *instance, updates []exportUpdate) error {
	changes := make([]bgp.ExportChange, 0, len(updates))
	for _, u := range updates {
		changes = append(changes, u.change)
	}
	if err := inst.router.ApplyExports(ctx, changes); err != nil {
		return err
	}
	for _, u := range updates {
		export := inst.peers[u.name].export
		for _, p := range u.change.Set {
			export.set(p.Prefix, p.Attributes)
		}
		for _, p := range u.change.Remove {
			export.remove(p)
		}
	}
	return nil
}

func comparePaths(a, b bgp.Path) int { return bgp.ComparePrefix(a.Prefix, b.Prefix) }
