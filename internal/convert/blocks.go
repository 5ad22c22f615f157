package convert

import (
	"net/netip"
	"slices"
	"strings"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// The address blocks of MetalLB's and Cilium's pools, as LoadBalancerIPPool blocks and
// as the prefixes an advertisement's loadBalancerIPPrefixes lists.

// Limits of kbgp's schema.
const (
	// maxBlocks is the most blocks a LoadBalancerIPPool holds.
	maxBlocks = 64
	// maxPrefixes is the most loadBalancerIPPrefixes an advertisement lists.
	maxPrefixes = 32
)

// addressBlock converts one entry of a MetalLB pool's addresses, a CIDR or a range
// "first-last", into a block and the prefixes that cover it.
func addressBlock(item node, a string) (kbgpv1.IPBlock, []netip.Prefix, bool) {
	if first, last, isRange := strings.Cut(a, "-"); isRange {
		return rangeBlock(item, strings.TrimSpace(first), strings.TrimSpace(last))
	}
	p, err := netip.ParsePrefix(strings.TrimSpace(a))
	if err != nil {
		item.warn("%q is neither a CIDR nor a range: dropped", a)
		return kbgpv1.IPBlock{}, nil, false
	}
	p = network(item, a, p, "MetalLB")
	return kbgpv1.IPBlock{CIDR: kbgpv1.CIDR(p.String())}, []netip.Prefix{p}, true
}

// rangeBlock converts the range first..last into a start/stop block and the prefixes
// that cover it.
func rangeBlock(item node, first, last string) (kbgpv1.IPBlock, []netip.Prefix, bool) {
	start, err1 := netip.ParseAddr(first)
	stop, err2 := netip.ParseAddr(last)
	start, stop = start.Unmap(), stop.Unmap()
	if err1 != nil || err2 != nil || start.Zone() != "" || stop.Zone() != "" || start.Is4() != stop.Is4() || stop.Less(start) {
		item.warn("%q is not a range of one family with its first address before its last: dropped", first+"-"+last)
		return kbgpv1.IPBlock{}, nil, false
	}
	return kbgpv1.IPBlock{Start: kbgpv1.IPAddress(start.String()), Stop: kbgpv1.IPAddress(stop.String())}, rangePrefixes(start, stop), true
}

// network is the prefix p, written as s, as the network owner allocates from: an
// IPv4-mapped prefix as IPv4, host bits cleared (with a warning).
func network(item node, s string, p netip.Prefix, owner string) netip.Prefix {
	if p.Addr().Is4In6() {
		p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
	}
	if m := p.Masked(); m != p {
		item.warn("%q has host bits set: written as %s, the network %s uses", s, m, owner)
		p = m
	}
	return p
}

// appendBlock appends block to a LoadBalancerIPPool's blocks, or reports at item that
// the pool is full.
func appendBlock(item node, blocks []kbgpv1.IPBlock, block kbgpv1.IPBlock) []kbgpv1.IPBlock {
	if len(blocks) == maxBlocks {
		item.warn("is beyond the %d blocks a LoadBalancerIPPool holds: dropped", maxBlocks)
		return blocks
	}
	return append(blocks, block)
}

// limitPrefixes is prefixes as an advertisement's loadBalancerIPPrefixes, at most
// maxPrefixes of them: the rest is reported at src.
func limitPrefixes(src *source, prefixes []netip.Prefix) []kbgpv1.CIDR {
	var out []kbgpv1.CIDR
	for _, p := range prefixes {
		if cidr := kbgpv1.CIDR(p.String()); !slices.Contains(out, cidr) {
			out = append(out, cidr)
		}
	}
	if len(out) > maxPrefixes {
		src.warn("", "selects pools of %d prefixes, more than the %d loadBalancerIPPrefixes an advertisement lists: the rest dropped (addresses inside a LoadBalancerIPPool are announced without them)", len(out), maxPrefixes)
		out = out[:maxPrefixes]
	}
	return out
}

// rangePrefixes are the fewest prefixes that cover first..last exactly.
func rangePrefixes(first, last netip.Addr) []netip.Prefix {
	var out []netip.Prefix
	for a := first; a.IsValid() && !last.Less(a); {
		bits := a.BitLen()
		for bits > 0 {
			p := netip.PrefixFrom(a, bits-1).Masked()
			if p.Addr() != a || last.Less(kbgpv1.LastAddr(p)) {
				break
			}
			bits--
		}
		p := netip.PrefixFrom(a, bits)
		out = append(out, p)
		end := kbgpv1.LastAddr(p)
		if end == last {
			break
		}
		a = end.Next()
	}
	return out
}
