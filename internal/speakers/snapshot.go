package speakers

import (
	"context"
	"errors"
	"fmt"
	"net/netip"

	"kbgp.io/kbgp/internal/bgp"
)

// PeerSnapshot is one configured peer with its live state.
type PeerSnapshot struct {
	Peer   bgp.Peer
	Status bgp.PeerStatus
	// AdvertisedByFamily is the number of prefixes the peer is sent per address family,
	// counted from the applied export set rather than by walking the router's RIB.
	AdvertisedByFamily map[bgp.Family]int
}

// Advertised is the number of prefixes the peer is sent over all families.
func (p PeerSnapshot) Advertised() int {
	n := 0
	for _, c := range p.AdvertisedByFamily {
		n += c
	}
	return n
}

// InstanceSnapshot is one running speaker with its peers by name.
type InstanceSnapshot struct {
	Global bgp.Global
	Peers  map[string]PeerSnapshot
	// BMP is the speaker's connection to each of its collectors.
	BMP []bgp.BMPStatus
}

// Snapshot reports every running instance and peer. Peers are matched to the router's
// report by address inside their own instance, since only there is an address unique.
func (s *Set) Snapshot(ctx context.Context) (map[bgp.InstanceKey]InstanceSnapshot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[bgp.InstanceKey]InstanceSnapshot, len(s.instances))
	var errs []error
	for key, inst := range s.instances {
		statuses, err := inst.router.Peers(ctx)
		if err != nil {
			errs = append(errs, fmt.Errorf("instance %s: %w", key, err))
		}
		byAddr := make(map[netip.Addr]bgp.PeerStatus, len(statuses))
		for _, st := range statuses {
			byAddr[st.Address] = st
		}
		snap := InstanceSnapshot{Global: inst.global, Peers: make(map[string]PeerSnapshot, len(inst.peers))}
		if len(inst.bmp) > 0 {
			if snap.BMP, err = inst.router.BMP(ctx); err != nil {
				errs = append(errs, fmt.Errorf("instance %s: %w", key, err))
			}
		}
		for name, ap := range inst.peers {
			st, ok := byAddr[ap.peer.Address]
			if !ok {
				st = bgp.PeerStatus{Address: ap.peer.Address, State: bgp.StateIdle}
			}
			snap.Peers[name] = PeerSnapshot{Peer: ap.peer, Status: st, AdvertisedByFamily: ap.export.countByFamily()}
		}
		out[key] = snap
	}
	return out, errors.Join(errs...)
}
