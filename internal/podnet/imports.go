package podnet

import "net/netip"

// Reasons a received route is not installed, as metric labels.
const (
	RejectOutsidePodRanges = "outside-pod-ranges"
	RejectOwnPodCIDR       = "own-pod-cidr"
	RejectNoNextHop        = "no-next-hop"
)

// ImportRejection says why a route a peer sent must not reach the node's kernel, ""
// when it may: only another node's pod CIDR does — inside one of the cluster's pod
// ranges, not overlapping the node's own pod CIDRs (a router must never steer the
// node's own pods elsewhere), with a usable next hop of the route's family.
func ImportRejection(prefix netip.Prefix, nextHop netip.Addr, cluster, own []netip.Prefix) string {
	inside := false
	for _, c := range cluster {
		if c.Addr().Is4() == prefix.Addr().Is4() && c.Bits() <= prefix.Bits() && c.Contains(prefix.Addr()) {
			inside = true
			break
		}
	}
	if !inside {
		return RejectOutsidePodRanges
	}
	for _, o := range own {
		if o.Overlaps(prefix) {
			return RejectOwnPodCIDR
		}
	}
	if !nextHop.IsValid() || nextHop.Is4() != prefix.Addr().Is4() || nextHop.IsUnspecified() {
		return RejectNoNextHop
	}
	return ""
}
