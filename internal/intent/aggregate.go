package intent

import (
	"net/netip"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// Aggregation (docs/advertisements.md): an entry with aggregationLengthIPv4/IPv6
// announces the load-balancer and external IPs of Services with externalTrafficPolicy
// Cluster as their covering prefix of that length. Every node announces those
// addresses, so one aggregate stands for all of them and the routers hold one route
// instead of one per Service. An address keeps its host route when:
//   - its Service has externalTrafficPolicy Local: only nodes with a ready endpoint
//     announce it, and a router must see which;
//   - it is a cluster IP: the cluster's own range, never aggregated;
//   - the aggregate is not wholly inside one range that allows the address (the
//     advertisement's prefixes of its kind, or for a load-balancer IP a pool block
//     serving the Service): the aggregate would announce addresses no administrator
//     allowed;
//   - the aggregate overlaps the node's addresses or pod CIDRs or a reserved prefix
//     (another Node's addresses or pod CIDRs, a Service CIDR): it would draw traffic
//     meant for them, where a host route cannot.
//
// The rules are per address, so an aggregate is announced while at least one address
// the entry allows to be aggregated lies in it, and the host routes of the addresses
// that may not be aggregated are announced beside it (more specific, they win).

// aggregates memoises, per aggregate, whether the reserved prefixes overlap it: the
// check scans the reservations more specific than the aggregate, once per aggregate
// and change of the reserved set instead of once per address.
type aggregates struct {
	version  uint64
	reserved map[netip.Prefix]bool
}

// aggregationLength is the entry's aggregation length for addr's family; 0: none.
func (r *serviceRule) aggregationLength(addr netip.Addr) int {
	l := r.entry.Service.AggregationLengthIPv4
	if addr.Is6() {
		l = r.entry.Service.AggregationLengthIPv6
	}
	if l == nil || int(*l) >= addr.BitLen() || *l < 1 {
		return 0
	}
	return int(*l)
}

// announcedPrefix is the prefix an allowed address of kind is announced as: its
// aggregate when the rules above allow it, its host route otherwise.
func (r *serviceRule) announcedPrefix(svc *corev1.Service, lbls labels.Set, kind kbgpv1.ServiceAddressType, addr netip.Addr) netip.Prefix {
	host := netip.PrefixFrom(addr, addr.BitLen())
	bits := r.aggregationLength(addr)
	if bits == 0 || kind == kbgpv1.ServiceClusterIP || nodeLocal(svc, kind) {
		return host
	}
	agg := netip.PrefixFrom(addr, bits).Masked()
	if !r.allowsAggregate(kind, agg, lbls) {
		return host
	}
	return agg
}

// allowsAggregate reports whether agg lies wholly in a range that allows addresses of
// kind for the Service and overlaps nothing the cluster keeps.
func (r *serviceRule) allowsAggregate(kind kbgpv1.ServiceAddressType, agg netip.Prefix, lbls labels.Set) bool {
	inside := func(p netip.Prefix) bool { return p.Bits() <= agg.Bits() && p.Contains(agg.Addr()) }
	var ok bool
	switch kind {
	case kbgpv1.ServiceExternalIP:
		ok = slices.ContainsFunc(r.externalIP, inside)
	case kbgpv1.ServiceLoadBalancerIP:
		last := kbgpv1.LastAddr(agg)
		ok = slices.ContainsFunc(r.loadBalancerIP, inside) ||
			slices.ContainsFunc(r.pools, func(b PoolRange) bool { return b.allowsFor(agg.Addr(), lbls) && b.Contains(last) })
	}
	if !ok || slices.ContainsFunc(r.nodeOwned, agg.Overlaps) {
		return false
	}
	return !r.reservedOverlaps(agg)
}

// reservedOverlaps reports whether a reserved prefix overlaps agg, memoised per
// version of the reserved set.
func (r *serviceRule) reservedOverlaps(agg netip.Prefix) bool {
	if r.reserved == nil {
		return false
	}
	if r.aggregates == nil {
		return r.reserved.overlaps(agg)
	}
	if r.aggregates.reserved == nil || r.aggregates.version != r.reserved.version {
		r.aggregates.reserved, r.aggregates.version = map[netip.Prefix]bool{}, r.reserved.version
	}
	over, ok := r.aggregates.reserved[agg]
	if !ok {
		over = r.reserved.overlaps(agg)
		r.aggregates.reserved[agg] = over
	}
	return over
}

// overlaps reports whether a reserved prefix covers or lies in p: the covering ones
// in one map access per prefix length in use, the more specific ones by a scan.
func (r *Reserved) overlaps(p netip.Prefix) bool {
	lengths := &r.lengths[family(p.Addr())]
	for bits := p.Bits(); bits >= 0; bits-- {
		if lengths[bits] > 0 {
			if _, ok := r.byPrefix[netip.PrefixFrom(p.Addr(), bits).Masked()]; ok {
				return true
			}
		}
	}
	if !slices.ContainsFunc(lengths[p.Bits()+1:], func(n int) bool { return n > 0 }) {
		return false
	}
	for q := range r.byPrefix {
		if q.Bits() > p.Bits() && p.Contains(q.Addr()) {
			return true
		}
	}
	return false
}

// AggregationLengths are the aggregation lengths the advertisements use, per family
// (index 0 IPv4, 1 IPv6), for re-deciding aggregates when the reserved set changes.
type AggregationLengths [2][]int

// aggregationLengths collects the lengths of every Service entry.
func aggregationLengths(ads []kbgpv1.BGPAdvertisement) AggregationLengths {
	var out AggregationLengths
	add := func(fam int, l *int32) {
		if l != nil && !slices.Contains(out[fam], int(*l)) {
			out[fam] = append(out[fam], int(*l))
		}
	}
	for _, ad := range ads {
		for _, a := range ad.Spec.Advertisements {
			if a.Service != nil {
				add(0, a.Service.AggregationLengthIPv4)
				add(1, a.Service.AggregationLengthIPv6)
			}
		}
	}
	return out
}

// Widen adds to the prefixes whose reservation changed their covering prefix at each
// aggregation length shorter than theirs: an address whose aggregate overlaps a
// changed prefix lies in one of those, so exports.Index.ClaimantsIn of the result
// names every Service whose aggregate may have to give way to (or may return after)
// the change, not only those with an address in it.
func (l AggregationLengths) Widen(changed []netip.Prefix) []netip.Prefix {
	out := slices.Clone(changed)
	for _, p := range changed {
		for _, bits := range l[family(p.Addr())] {
			if bits < p.Bits() {
				out = append(out, netip.PrefixFrom(p.Addr(), bits).Masked())
			}
		}
	}
	slices.SortFunc(out, netip.Prefix.Compare)
	return slices.Compact(out)
}
