package bgpfake

import (
	"context"
	"fmt"
	"net/netip"
	"slices"

	"kbgp.io/kbgp/internal/bgp"
)

// AdjRIB implements bgp.Router: the Adj-RIB-Out is what the peer is sent, with the
// attributes of its export (no AS path: the fake has no wire to prepend on), and empty
// while SetState holds the session out of Established, as GoBGP's is; the Adj-RIB-In
// is what SetReceived last gave.
func (r *Router) AdjRIB(_ context.Context, addr netip.Addr, side bgp.AdjRIB) ([]bgp.ReceivedRoute, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, ok := r.peers[addr]
	if !ok {
		return nil, fmt.Errorf("peer %s not found", addr)
	}
	var out []bgp.ReceivedRoute
	switch side {
	case bgp.AdjRIBOut:
		if p.state != bgp.StateEstablished {
			break
		}
		for pfx, attrs := range p.sent {
			out = append(out, bgp.ReceivedRoute{Neighbor: addr, Prefix: pfx, NextHop: attrs.NextHop, Attributes: attrs, Origin: bgp.OriginIGP})
		}
	case bgp.AdjRIBIn:
		out = slices.Clone(p.received)
	default:
		return nil, fmt.Errorf("unknown Adj-RIB %q", side)
	}
	slices.SortFunc(out, func(a, b bgp.ReceivedRoute) int { return bgp.ComparePrefix(a.Prefix, b.Prefix) })
	return out, nil
}

// SetReceived makes routes what the peer sent (its Adj-RIB-In), each with Neighbor set
// to the peer.
func (r *Router) SetReceived(addr netip.Addr, routes []bgp.ReceivedRoute) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if p, ok := r.peers[addr]; ok {
		p.received = slices.Clone(routes)
		for i := range p.received {
			p.received[i].Neighbor = addr
		}
	}
}
