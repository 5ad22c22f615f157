package podnet

import (
	"net/netip"
	"slices"
)

// Reasons a received route is not installed, as metric labels.
const (
	RejectOutsidePodRanges = "outside-pod-ranges"
	RejectNotNodePodCIDR   = "not-a-node-pod-cidr"
	RejectOwnPodCIDR       = "own-pod-cidr"
	RejectNoNextHop        = "no-next-hop"
	RejectLocalNextHop     = "local-next-hop"
	RejectNonUnicast       = "non-unicast-next-hop"
	// RejectForeignRoute is given by the kernel side, not ImportRejection: the table
	// already has a route to the prefix that kbgp did not install (a connected route,
	// another daemon's), which kbgp never replaces.
	RejectForeignRoute = "foreign-route"
)

// ImportScope is what a received route is judged against.
type ImportScope struct {
	// Ranges are the cluster's pod ranges (--cluster-pod-cidrs): a Node's pod CIDR
	// outside them is not installed either. Empty: the Nodes' pod CIDRs are the ranges.
	Ranges []netip.Prefix
	// NodePodCIDRs are the pod CIDRs of the cluster's Nodes, this node's included:
	// only these prefixes, exactly, are installed.
	NodePodCIDRs []netip.Prefix
	// Own are this node's pod CIDRs.
	Own []netip.Prefix
	// Local are the node's own addresses, with their prefix lengths.
	Local []netip.Prefix
}

// ImportRejection says why a route a peer sent must not reach the node's kernel, ""
// when it may. Only another node's pod CIDR does, exactly as its Node has it (a
// more-specific would let any speaker the reflector accepts pull one pod's traffic
// away), never one overlapping the node's own pod CIDRs (a router must never steer the
// node's own pods elsewhere), via a next hop of the route's family that is another
// host: not loopback, not the node's own address or one of its pods, not multicast or
// broadcast.
func ImportRejection(prefix netip.Prefix, nextHop netip.Addr, s ImportScope) string {
	ranges := s.Ranges
	if len(ranges) == 0 {
		ranges = s.NodePodCIDRs
	}
	if !slices.ContainsFunc(ranges, func(r netip.Prefix) bool { return within(prefix, r) }) {
		return RejectOutsidePodRanges
	}
	if slices.ContainsFunc(s.Own, prefix.Overlaps) {
		return RejectOwnPodCIDR
	}
	if !slices.Contains(s.NodePodCIDRs, prefix) {
		return RejectNotNodePodCIDR
	}
	return NextHopRejection(prefix, nextHop.Unmap(), s, false)
}

// within reports whether p lies inside r.
func within(p, r netip.Prefix) bool {
	return r.Addr().Is4() == p.Addr().Is4() && r.Bits() <= p.Bits() && r.Contains(p.Addr())
}

// NextHopRejection says why nh must not be the next hop of a route to prefix in the
// node's kernel, "" when it may: it must be another host, not loopback, not the node's
// own address or one of its pods, not multicast or broadcast. Of the prefix's family,
// or, with viaIPv6, an IPv6 address for an IPv4 prefix too (RFC 8950); a link-local
// one only with the zone of its interface, which the kernel needs.
func NextHopRejection(prefix netip.Prefix, nh netip.Addr, s ImportScope, viaIPv6 bool) string {
	sameFamily := nh.Is4() == prefix.Addr().Is4()
	if !nh.IsValid() || nh.IsUnspecified() || (!sameFamily && !(viaIPv6 && nh.Is6())) ||
		(nh.IsLinkLocalUnicast() && nh.Is6() && nh.Zone() == "" && viaIPv6) {
		return RejectNoNextHop
	}
	if nh.IsMulticast() || nh == netip.AddrFrom4([4]byte{255, 255, 255, 255}) {
		return RejectNonUnicast
	}
	if nh.IsLoopback() || slices.ContainsFunc(s.Own, func(o netip.Prefix) bool { return o.Contains(nh) }) {
		return RejectLocalNextHop
	}
	for _, l := range s.Local {
		if l.Addr().Unmap() == nh.WithZone("") {
			return RejectLocalNextHop
		}
		if l.Addr().Is4() && l.Bits() <= 30 && nh == lastAddr(l.Masked()) {
			return RejectNonUnicast // the directed broadcast of a connected subnet
		}
	}
	return ""
}

// lastAddr is the highest address of an IPv4 prefix.
func lastAddr(p netip.Prefix) netip.Addr {
	a := p.Addr().As4()
	for i := p.Bits(); i < 32; i++ {
		a[i/8] |= 1 << (7 - i%8)
	}
	return netip.AddrFrom4(a)
}
