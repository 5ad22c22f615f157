package intent

import (
	"fmt"
	"net/netip"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/exports"
)

// allowedRanges are the ranges an advertisement entry lets Service addresses of the
// user-chosen kinds be announced from: a Service's external IPs are written by whoever
// writes the Service, and a load-balancer IP by whatever writes its status, so neither
// is announced outside ranges an administrator allowed: the advertisement's prefixes,
// and for load-balancer IPs the LoadBalancerIPPools too. Cluster IPs come from the
// cluster's own allocator and need no range.
//
// Whatever the ranges allow, the node's own addresses and pod CIDRs are never announced
// as a Service's external or load-balancer IP: a /32 of them would take the node's or
// its pods' traffic (CVE-2020-8554, carried over BGP).
type allowedRanges struct {
	externalIP, loadBalancerIP []netip.Prefix
	pools                      []PoolRange
	nodeOwned                  []netip.Prefix
}

func newAllowedRanges(s *kbgpv1.ServiceAdvertisement, pools []PoolRange, nodeOwned []netip.Prefix) allowedRanges {
	return allowedRanges{externalIP: parseRanges(s.ExternalIPPrefixes), loadBalancerIP: parseRanges(s.LoadBalancerIPPrefixes), pools: pools, nodeOwned: nodeOwned}
}

// nodeOwned are the node's addresses (as host prefixes) and its pod CIDRs.
func nodeOwned(node *corev1.Node) []netip.Prefix {
	if node == nil {
		return nil
	}
	var out []netip.Prefix
	for _, a := range node.Status.Addresses {
		if addr, err := netip.ParseAddr(a.Address); err == nil {
			out = append(out, netip.PrefixFrom(addr.Unmap(), addr.Unmap().BitLen()))
		}
	}
	for _, fam := range []bgp.Family{bgp.FamilyIPv4Unicast, bgp.FamilyIPv6Unicast} {
		out = append(out, podCIDRs(node, fam)...)
	}
	return out
}

// ownedByNode reports whether addr is one of the node's addresses or in its pod CIDRs.
func (a allowedRanges) ownedByNode(addr netip.Addr) bool {
	return slices.ContainsFunc(a.nodeOwned, func(p netip.Prefix) bool { return p.Contains(addr) })
}

// PoolRange is one block of a LoadBalancerIPPool: its addresses may be announced as
// load-balancer IPs of the Services the pool serves. A disabled pool still allows its
// addresses: disabling stops new allocations only, and the Services holding them keep
// them (docs/load-balancer.md).
type PoolRange struct {
	kbgpv1.AddressRange
	// Serves selects the Services the pool serves (its serviceSelector, matched
	// against kbgpv1.ServiceLabels); nil serves every Service.
	Serves labels.Selector
}

// PoolRanges are the valid blocks of the pools; an invalid one (its status says why)
// allows nothing, and so does a pool whose selector does not compile (the schema
// prevents it).
func PoolRanges(pools []kbgpv1.LoadBalancerIPPool) []PoolRange {
	var out []PoolRange
	for _, p := range pools {
		var serves labels.Selector
		if p.Spec.ServiceSelector != nil {
			sel, err := metav1.LabelSelectorAsSelector(p.Spec.ServiceSelector.ToMetav1())
			if err != nil {
				continue
			}
			serves = sel
		}
		for _, b := range p.Spec.Blocks {
			if r, err := b.Range(); err == nil {
				out = append(out, PoolRange{AddressRange: r, Serves: serves})
			}
		}
	}
	return out
}

// allowsFor reports whether the block holds a and its pool serves a Service with
// labels svc.
func (r PoolRange) allowsFor(a netip.Addr, svc labels.Set) bool {
	return r.Contains(a) && (r.Serves == nil || r.Serves.Matches(svc))
}

// parseRanges parses CIDRs; one that does not parse (the schema prevents it) allows
// nothing.
func parseRanges(cidrs []kbgpv1.CIDR) []netip.Prefix {
	var out []netip.Prefix
	for _, c := range cidrs {
		if p, err := netip.ParsePrefix(string(c)); err == nil {
			out = append(out, p.Masked())
		}
	}
	return out
}

// maxAddresses is the rule's maxAddressesPerService.
func (r *serviceRule) maxAddresses() int {
	if m := r.entry.Service.MaxAddressesPerService; m != nil {
		return int(*m)
	}
	return kbgpv1.DefaultMaxAddressesPerService
}

// allows reports whether an address of kind may be announced for a Service with labels
// svc (kbgpv1.ServiceLabels).
func (a allowedRanges) allows(kind kbgpv1.ServiceAddressType, addr netip.Addr, svc labels.Set) bool {
	if kind != kbgpv1.ServiceClusterIP && a.ownedByNode(addr) {
		return false
	}
	var ranges []netip.Prefix
	switch kind {
	case kbgpv1.ServiceExternalIP:
		ranges = a.externalIP
	case kbgpv1.ServiceLoadBalancerIP:
		if slices.ContainsFunc(a.pools, func(r PoolRange) bool { return r.allowsFor(addr, svc) }) {
			return true
		}
		ranges = a.loadBalancerIP
	default:
		return true
	}
	return slices.ContainsFunc(ranges, func(p netip.Prefix) bool { return p.Contains(addr) })
}

// notAllowed is the refusal of an address of kind an advertisement selects but does
// not allow: it is the node's (nodeOwned), or outside the advertisement's ranges.
func notAllowed(kind kbgpv1.ServiceAddressType, addr netip.Addr, advertisement string, nodeOwned bool) exports.Refusal {
	if nodeOwned {
		return exports.Refusal{Addr: addr, Reason: fmt.Sprintf("%s %s is an address of this node or in its pod CIDRs", kind, addr)}
	}
	where := "is outside the externalIPPrefixes"
	if kind == kbgpv1.ServiceLoadBalancerIP {
		where = "is in no LoadBalancerIPPool serving the Service and outside the loadBalancerIPPrefixes"
	}
	return exports.Refusal{Addr: addr, Reason: fmt.Sprintf("%s %s %s of BGPAdvertisement %s", kind, addr, where, advertisement)}
}

// tooMany is the refusal of a Service with more addresses of one family than the
// advertisement announces for one Service.
func tooMany(n, limit int, advertisement string) exports.Refusal {
	return exports.Refusal{Reason: fmt.Sprintf("%d addresses of one family exceed the maxAddressesPerService %d of BGPAdvertisement %s", n, limit, advertisement)}
}
