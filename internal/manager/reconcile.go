package manager

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

// reconcileInstance brings one running speaker to want, in an order fixed here:
//
//  1. Prefixes no peer exports any more are withdrawn first, while every export policy
//     that sent them still does, so each peer that had them gets the withdrawal.
//  2. Peers are removed, reset, updated and added (removed before added, so a renamed
//     peer with the same address never collides with its old self), and their export
//     policies are edited. A new peer's first UPDATEs carry what is already originated.
//  3. New prefixes are originated, together with the already originated prefixes whose
//     export changed for some peer, in one batch: each goes through every peer's final
//     export policy once, however many peers' exports of it changed.
func (m *Manager) reconcileInstance(ctx context.Context, key bgp.InstanceKey, inst *instance, want bgp.DesiredInstance) error {
	originate := want.Originated()
	var errs []error
	if err := m.deletePaths(ctx, inst, originate); err != nil {
		errs = append(errs, fmt.Errorf("instance %s: %w", key, err))
	}
	errs = append(errs, m.reconcilePeers(ctx, key, inst, want.Peers))
	if err := m.addPaths(ctx, inst, originate); err != nil {
		errs = append(errs, fmt.Errorf("instance %s: %w", key, err))
	}
	return errors.Join(errs...)
}

// addPaths originates the new prefixes and re-originates those waiting for a peer's
// changed export to take effect, in one batch.
func (m *Manager) addPaths(ctx context.Context, inst *instance, want map[netip.Prefix]struct{}) error {
	add := maps.Clone(inst.reexport)
	for p := range want {
		if _, ok := inst.originated[p]; !ok {
			add[p] = struct{}{}
		}
	}
	if len(add) == 0 {
		return nil
	}
	if err := inst.router.AddPaths(ctx, sortedPrefixes(add)); err != nil {
		return err
	}
	maps.Copy(inst.originated, add)
	clear(inst.reexport)
	return nil
}

// deletePaths withdraws the prefixes no longer wanted, in one batch.
func (m *Manager) deletePaths(ctx context.Context, inst *instance, want map[netip.Prefix]struct{}) error {
	var del []netip.Prefix
	for p := range inst.originated {
		if _, ok := want[p]; !ok {
			del = append(del, p)
		}
	}
	return withdraw(ctx, inst, del)
}

// withdraw deletes the originated prefixes del in one sorted batch and forgets them.
func withdraw(ctx context.Context, inst *instance, del []netip.Prefix) error {
	if len(del) == 0 {
		return nil
	}
	slices.SortFunc(del, bgp.ComparePrefix)
	if err := inst.router.DeletePaths(ctx, del); err != nil {
		return err
	}
	for _, p := range del {
		delete(inst.originated, p)
		delete(inst.reexport, p)
	}
	return nil
}

// reconcilePeers removes, resets, updates and adds peers. A failure is recorded for
// that peer and the others go on.
func (m *Manager) reconcilePeers(ctx context.Context, key bgp.InstanceKey, inst *instance, want map[string]bgp.DesiredPeer) error {
	var errs []error
	record := func(name string, err error) {
		ref := PeerRef{Instance: key, Name: name}
		if err == nil {
			delete(m.peerErrors, ref)
			return
		}
		m.peerErrors[ref] = err
		errs = append(errs, fmt.Errorf("instance %s peer %s: %w", key, name, err))
	}
	for _, name := range slices.Sorted(maps.Keys(inst.peers)) {
		if _, ok := want[name]; !ok {
			m.logger.Info("removing peer", "instance", key.String(), "peer", name)
			err := inst.router.DeletePeer(ctx, inst.peers[name].peer.Address)
			if err == nil {
				delete(inst.peers, name)
			}
			record(name, err)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(want)) {
		have, ok := inst.peers[name]
		if !ok {
			record(name, m.addPeer(ctx, key, inst, want[name]))
			continue
		}
		record(name, m.changePeer(ctx, key, inst, have, want[name]))
	}
	return errors.Join(errs...)
}

func (m *Manager) addPeer(ctx context.Context, key bgp.InstanceKey, inst *instance, p bgp.DesiredPeer) error {
	m.logger.Info("adding peer", "instance", key.String(), "peer", p.Name, "address", p.Address.String(), "peerASN", p.ASN)
	if err := inst.router.AddPeer(ctx, p.Peer, pathsOf(p.Export, slices.Collect(maps.Keys(p.Export)))); err != nil {
		return err
	}
	inst.peers[p.Name] = appliedPeer{peer: p.Peer, export: maps.Clone(p.Export)}
	return nil
}

// changePeer applies a changed peer: a new session where BGP needs one, in place
// otherwise, then the difference of its export.
func (m *Manager) changePeer(ctx context.Context, key bgp.InstanceKey, inst *instance, have appliedPeer, want bgp.DesiredPeer) error {
	if reason := sessionResetReason(have.peer, want.Peer); reason != "" {
		m.logger.Info("resetting peer session", "instance", key.String(), "peer", want.Name, "reason", reason)
		if err := inst.router.DeletePeer(ctx, have.peer.Address); err != nil {
			return err
		}
		delete(inst.peers, want.Name)
		return m.addPeer(ctx, key, inst, want)
	}
	if !reflect.DeepEqual(have.peer, want.Peer) {
		if err := inst.router.UpdatePeer(ctx, want.Peer); err != nil {
			return err
		}
		have.peer = want.Peer
		inst.peers[want.Name] = have
	}
	set, remove := diffExport(have.export, want.Export)
	if len(set) == 0 && len(remove) == 0 {
		return nil
	}
	if err := inst.router.UpdatePeerExport(ctx, want.Address, pathsOf(want.Export, set), remove); err != nil {
		return err
	}
	for _, p := range set {
		if _, ok := inst.originated[p]; ok {
			inst.reexport[p] = struct{}{}
		}
	}
	have.export = maps.Clone(want.Export)
	inst.peers[want.Name] = have
	return nil
}

// diffExport returns the prefixes that are new in want or carry other attributes
// there (set), and those want no longer has (remove), each sorted.
func diffExport(have, want map[netip.Prefix]bgp.PathAttributes) (set, remove []netip.Prefix) {
	for p, a := range want {
		if old, ok := have[p]; !ok || !reflect.DeepEqual(old, a) {
			set = append(set, p)
		}
	}
	for p := range have {
		if _, ok := want[p]; !ok {
			remove = append(remove, p)
		}
	}
	slices.SortFunc(set, bgp.ComparePrefix)
	slices.SortFunc(remove, bgp.ComparePrefix)
	return set, remove
}

// pathsOf returns the prefixes with their attributes in export, sorted by prefix.
func pathsOf(export map[netip.Prefix]bgp.PathAttributes, prefixes []netip.Prefix) []bgp.Path {
	slices.SortFunc(prefixes, bgp.ComparePrefix)
	out := make([]bgp.Path, 0, len(prefixes))
	for _, p := range prefixes {
		out = append(out, bgp.Path{Prefix: p, Attributes: export[p]})
	}
	return out
}

func sortedPrefixes(set map[netip.Prefix]struct{}) []netip.Prefix {
	return slices.SortedFunc(maps.Keys(set), bgp.ComparePrefix)
}
