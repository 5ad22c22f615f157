package manager

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"

	"kbgp.io/kbgp/internal/bgp"
)

// ApplyExports applies changes to the exports of running peers — the hot path of a
// Service event — at the cost of the change, not of everything the speakers send:
// each peer's export policy is edited by the difference, the set prefixes are
// (re-)originated in one batch per speaker, and the prefixes no peer exports any more
// are withdrawn in one batch.
//
// A change for a speaker or peer that is not running is skipped: it was not applied,
// and the next Apply brings it up with its whole export. A failed call is returned; the
// caller then falls back to a full Apply, which repairs whatever was half done.
func (m *Manager) ApplyExports(ctx context.Context, changes []bgp.ExportChange) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	byInstance := map[bgp.InstanceKey][]bgp.ExportChange{}
	for _, ch := range changes {
		byInstance[ch.Instance] = append(byInstance[ch.Instance], ch)
	}
	var errs []error
	for _, key := range sortedKeys(byInstance) {
		if inst, ok := m.instances[key]; ok {
			if err := m.applyInstanceExports(ctx, inst, byInstance[key]); err != nil {
				errs = append(errs, fmt.Errorf("instance %s: %w", key, err))
			}
		}
	}
	return errors.Join(errs...)
}

// applyInstanceExports applies one speaker's changes in the order of reconcileInstance:
// prefixes no peer will export are withdrawn first, while the policies that sent them
// still do (a prefix removed from one peer's policy while still originated costs a
// soft reset out of that peer); then the policies are edited; then the set prefixes
// are originated or re-originated in one batch.
func (m *Manager) applyInstanceExports(ctx context.Context, inst *instance, changes []bgp.ExportChange) error {
	changes = slices.DeleteFunc(slices.Clone(changes), func(ch bgp.ExportChange) bool {
		_, running := inst.peers[ch.Peer]
		return !running
	})
	if err := m.withdrawUnexported(ctx, inst, changes); err != nil {
		return err
	}
	set := map[netip.Prefix]struct{}{}
	for _, ch := range changes {
		ap := inst.peers[ch.Peer]
		if err := inst.router.UpdatePeerExport(ctx, ap.peer.Address, ch.Set, ch.Remove); err != nil {
			return fmt.Errorf("peer %s: %w", ch.Peer, err)
		}
		for _, p := range ch.Set {
			ap.export[p.Prefix] = p.Attributes
			set[p.Prefix] = struct{}{}
			if _, ok := inst.originated[p.Prefix]; ok {
				inst.reexport[p.Prefix] = struct{}{}
			}
		}
		for _, p := range ch.Remove {
			delete(ap.export, p)
		}
	}
	return m.addPaths(ctx, inst, set)
}

// withdrawUnexported withdraws the originated prefixes that the changes remove from
// every peer exporting them: O(removed prefixes × peers).
func (m *Manager) withdrawUnexported(ctx context.Context, inst *instance, changes []bgp.ExportChange) error {
	after := exportsAfter(changes)
	var del []netip.Prefix
	seen := map[netip.Prefix]bool{}
	for _, ch := range changes {
		for _, p := range ch.Remove {
			if _, ok := inst.originated[p]; !ok || seen[p] {
				continue
			}
			seen[p] = true
			if !inst.exportedAfter(p, after) {
				del = append(del, p)
			}
		}
	}
	return withdraw(ctx, inst, del)
}

// exportsAfter says, per peer, which prefixes the changes add (true) or remove (false).
func exportsAfter(changes []bgp.ExportChange) map[string]map[netip.Prefix]bool {
	out := map[string]map[netip.Prefix]bool{}
	for _, ch := range changes {
		m := out[ch.Peer]
		if m == nil {
			m = map[netip.Prefix]bool{}
			out[ch.Peer] = m
		}
		for _, p := range ch.Set {
			m[p.Prefix] = true
		}
		for _, p := range ch.Remove {
			m[p] = false
		}
	}
	return out
}

// exportedAfter reports whether some peer of the speaker exports prefix once the
// pending changes are applied.
func (inst *instance) exportedAfter(prefix netip.Prefix, pending map[string]map[netip.Prefix]bool) bool {
	for name, ap := range inst.peers {
		if v, ok := pending[name][prefix]; ok {
			if v {
				return true
			}
			continue
		}
		if _, ok := ap.export[prefix]; ok {
			return true
		}
	}
	return false
}
