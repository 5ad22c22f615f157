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

func (m *Manager) applyInstanceExports(ctx context.Context, inst *instance, changes []bgp.ExportChange) error {
	set := map[netip.Prefix]struct{}{}
	var removed []netip.Prefix
	for _, ch := range changes {
		ap, ok := inst.peers[ch.Peer]
		if !ok {
			continue
		}
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
			removed = append(removed, p)
		}
	}
	if err := m.addPaths(ctx, inst, set); err != nil {
		return err
	}
	return m.withdrawUnexported(ctx, inst, removed)
}

// withdrawUnexported withdraws, of the candidates, the originated prefixes that no
// peer of the speaker exports any more: O(candidates × peers).
func (m *Manager) withdrawUnexported(ctx context.Context, inst *instance, candidates []netip.Prefix) error {
	var del []netip.Prefix
	seen := map[netip.Prefix]bool{}
	for _, p := range candidates {
		if _, ok := inst.originated[p]; !ok || seen[p] || inst.exported(p) {
			continue
		}
		seen[p] = true
		del = append(del, p)
	}
	if len(del) == 0 {
		return nil
	}
	slices.SortFunc(del, comparePrefix)
	if err := inst.router.DeletePaths(ctx, del); err != nil {
		return err
	}
	for _, p := range del {
		delete(inst.originated, p)
		delete(inst.reexport, p)
	}
	return nil
}

// exported reports whether some peer of the speaker exports prefix.
func (inst *instance) exported(prefix netip.Prefix) bool {
	for _, ap := range inst.peers {
		if _, ok := ap.export[prefix]; ok {
			return true
		}
	}
	return false
}
