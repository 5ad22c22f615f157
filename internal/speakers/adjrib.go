package speakers

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"kbgp.io/kbgp/internal/bgp"
)

// RunningPeer is a peer a speaker runs, by instance and name.
type RunningPeer struct {
	Ref  PeerRef
	Peer bgp.Peer
}

// RunningPeers lists the peers the speakers run, sorted by instance and name, without
// asking the speakers anything.
func (s *Set) RunningPeers() []RunningPeer {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []RunningPeer
	for _, key := range slices.SortedFunc(maps.Keys(s.instances), bgp.InstanceKey.Compare) {
		inst := s.instances[key]
		for _, name := range slices.Sorted(maps.Keys(inst.peers)) {
			out = append(out, RunningPeer{Ref: PeerRef{Instance: key, Name: name}, Peer: inst.peers[name].peer})
		}
	}
	return out
}

// AdjRIB lists one side of a running peer's routes, as its speaker holds them. The
// set's lock is not held during the call, so listing a large table never delays an
// apply.
func (s *Set) AdjRIB(ctx context.Context, ref PeerRef, side bgp.AdjRIB) ([]bgp.ReceivedRoute, error) {
	s.mu.Lock()
	inst, ok := s.instances[ref.Instance]
	var ap appliedPeer
	if ok {
		ap, ok = inst.peers[ref.Name]
	}
	s.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("instance %s has no peer %q", ref.Instance, ref.Name)
	}
	return inst.router.AdjRIB(ctx, ap.peer.Address, side)
}
