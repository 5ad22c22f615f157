package routes

import (
	"net/netip"
	"slices"

	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/podnet"
)

// Reasons a route an import policy judges is not installed, beside podnet's, as
// metric labels.
const (
	RejectNotInPolicy   = "not-in-import-policy"
	RejectDefaultRoute  = "default-route-not-allowed"
	RejectOverMaxRoutes = "over-max-routes"
	// RejectNodesUnknown: a pod route arrived before the Nodes were listed.
	RejectNodesUnknown = "nodes-not-known"
)

// PolicyRejection says why a route to prefix via nextHop must not reach the node's
// kernel under the import policy r, "" when it may (its cap aside: overCap). Never a
// prefix inside the node's own pod CIDRs (a router must never steer the node's own
// pods elsewhere; a shorter one, the default route too, is less specific than the
// pods' connected route and leaves them alone); the next hop as for pod routes (podnet.NextHopRejection), but an
// IPv4 route may go via an IPv6 next hop (RFC 8950).
func PolicyRejection(prefix netip.Prefix, nextHop netip.Addr, r bgp.RouteImport, s podnet.ImportScope) string {
	switch {
	case prefix.Bits() == 0 && !r.AllowDefaultRoute:
		return RejectDefaultRoute
	case !r.Accepts(prefix):
		return RejectNotInPolicy
	case slices.ContainsFunc(s.Own, func(own netip.Prefix) bool { return prefix.Bits() >= own.Bits() && own.Contains(prefix.Addr()) }):
		return podnet.RejectOwnPodCIDR
	}
	return podnet.NextHopRejection(prefix, nextHop.Unmap(), s, true)
}

// overCap is what a cap of max leaves out of the prefixes a policy accepted from one
// peer family: all but the first max in address order, then length. The same set
// whatever order the routes arrived in, so a restart or a session reset installs what
// was installed before.
func overCap(accepted []netip.Prefix, max int) map[netip.Prefix]bool {
	if len(accepted) <= max {
		return nil
	}
	sorted := slices.SortedFunc(slices.Values(accepted), comparePrefix)
	out := make(map[netip.Prefix]bool, len(sorted)-max)
	for _, p := range sorted[max:] {
		out[p] = true
	}
	return out
}

func comparePrefix(a, b netip.Prefix) int {
	if c := a.Addr().Compare(b.Addr()); c != 0 {
		return c
	}
	return a.Bits() - b.Bits()
}

// nextHops is the multipath route to a prefix: the distinct next hops of the peers
// whose route to it may be installed (accepted), in address order; none: no route.
func nextHops(sent map[netip.Addr]netip.Addr, accepted func(peer, nextHop netip.Addr) bool) []netip.Addr {
	var out []netip.Addr
	for peer, nh := range sent {
		if accepted(peer, nh) && !slices.Contains(out, nh) {
			out = append(out, nh)
		}
	}
	slices.SortFunc(out, netip.Addr.Compare)
	return out
}
