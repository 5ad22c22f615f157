package speakers

import (
	"context"
	"fmt"

	"kbgp.io/kbgp/internal/bgp"
)

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
