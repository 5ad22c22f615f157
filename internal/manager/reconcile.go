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

// reconcileInstance brings one running speaker to want. The order matters and is fixed
// here: paths are added before peers, so a peer that comes up now gets every prefix in
// its first UPDATEs (before End-of-RIB); peers are removed before others are added, so a
// renamed peer with the same address never collides with its old self; paths are
// withdrawn last, after no peer's export set refers to them any more.
func (m *Manager) reconcileInstance(ctx context.Context, key bgp.InstanceKey, inst *instance, want bgp.DesiredInstance) error {
	if err := m.addPaths(ctx, inst, want.Paths); err != nil {
		return fmt.Errorf("instance %s: %w", key, err)
	}
	errs := []error{m.reconcilePeers(ctx, key, inst, want.Peers)}
	if err := m.deletePaths(ctx, inst, want.Paths); err != nil {
		errs = append(errs, fmt.Errorf("instance %s: %w", key, err))
	}
	return errors.Join(errs...)
}

// addPaths originates new paths and re-originates paths whose attributes changed, in
// one batch.
func (m *Manager) addPaths(ctx context.Context, inst *instance, want map[netip.Prefix]bgp.PathAttributes) error {
	var add []bgp.Path
	for _, p := range slices.SortedFunc(maps.Keys(want), comparePrefix) {
		if have, ok := inst.paths[p]; !ok || !reflect.DeepEqual(have, want[p]) {
			add = append(add, bgp.Path{Prefix: p, Attributes: want[p]})
		}
	}
	if err := inst.router.AddPaths(ctx, add); err != nil {
		return err
	}
	for _, p := range add {
		inst.paths[p.Prefix] = p.Attributes
	}
	return nil
}

// deletePaths withdraws the paths no longer wanted, in one batch.
func (m *Manager) deletePaths(ctx context.Context, inst *instance, want map[netip.Prefix]bgp.PathAttributes) error {
	var del []netip.Prefix
	for _, p := range slices.SortedFunc(maps.Keys(inst.paths), comparePrefix) {
		if _, ok := want[p]; !ok {
			del = append(del, p)
		}
	}
	if err := inst.router.DeletePaths(ctx, del); err != nil {
		return err
	}
	for _, p := range del {
		delete(inst.paths, p)
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
	if err := inst.router.AddPeer(ctx, p.Peer, sortedPrefixes(p.Export)); err != nil {
		return err
	}
	inst.peers[p.Name] = appliedPeer{peer: p.Peer, export: maps.Clone(p.Export)}
	return nil
}

// changePeer applies a changed peer: a new session where BGP needs one, in place
// otherwise, then the difference of its export set.
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
	add, remove := diffSets(have.export, want.Export)
	if err := inst.router.UpdatePeerExport(ctx, want.Address, add, remove); err != nil {
		return err
	}
	have.export = maps.Clone(want.Export)
	inst.peers[want.Name] = have
	return nil
}

func diffSets(have, want map[netip.Prefix]struct{}) (add, remove []netip.Prefix) {
	for p := range want {
		if _, ok := have[p]; !ok {
			add = append(add, p)
		}
	}
	for p := range have {
		if _, ok := want[p]; !ok {
			remove = append(remove, p)
		}
	}
	slices.SortFunc(add, comparePrefix)
	slices.SortFunc(remove, comparePrefix)
	return add, remove
}

func sortedPrefixes(set map[netip.Prefix]struct{}) []netip.Prefix {
	return slices.SortedFunc(maps.Keys(set), comparePrefix)
}

func comparePrefix(a, b netip.Prefix) int {
	if c := a.Addr().Compare(b.Addr()); c != 0 {
		return c
	}
	return a.Bits() - b.Bits()
}
