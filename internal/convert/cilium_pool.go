package convert

import (
	"net/netip"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// Cilium's LB-IPAM hands out load-balancer IPs from CiliumLoadBalancerIPPools, and a
// CiliumBGPAdvertisement announces them whichever pool they come from. kbgp announces
// a load-balancer IP only inside a LoadBalancerIPPool or the advertisement's
// loadBalancerIPPrefixes; since the migration keeps LB-IPAM allocating until the end
// (no LoadBalancerIPPool yet), the advertisements list the blocks of every pool of the
// input, as MetalLB's do with their IPAddressPools.

// ciliumLB is what the Cilium objects of the input say about load-balancer IPs.
type ciliumLB struct {
	pools int
	// prefixes cover the blocks of every pool, disabled ones too: a disabled pool
	// keeps the addresses it gave.
	prefixes []netip.Prefix
	adverts  []ciliumLBAdvert
}

// ciliumLBAdvert is a converted CiliumBGPAdvertisement's entries that announce
// load-balancer IPs, filled in by assembleCilium once every pool is read.
type ciliumLBAdvert struct {
	src      *source
	services []*kbgpv1.ServiceAdvertisement
	// items are the LoadBalancerIP items of service.addresses, for the warning when
	// the input has no pool.
	items []node
}

// ciliumPool converts a CiliumLoadBalancerIPPool (v2alpha1 or v2) into a
// LoadBalancerIPPool: the same blocks, service selector and disabled.
func (c *converter) ciliumPool(s *source) {
	pool := &kbgpv1.LoadBalancerIPPool{TypeMeta: typeMeta("LoadBalancerIPPool"), ObjectMeta: c.meta(s)}
	spec := s.top().obj("spec")
	reserveEnds := false
	if v, ok := spec.str("allowFirstLastIPs"); ok {
		switch v {
		case "No":
			reserveEnds = true
		case "Yes":
		default:
			spec.child("allowFirstLastIPs").warn("%q is neither Yes nor No: dropped, every address of the CIDRs is handed out", v)
		}
	}
	// Cilium 1.14 listed the blocks as cidrs, later versions as blocks.
	for _, key := range []string{"blocks", "cidrs"} {
		for _, item := range spec.list(key) {
			if !item.isObj() {
				continue
			}
			if block, prefixes, ok := ciliumBlock(item, reserveEnds); ok {
				c.ciliumLB.prefixes = append(c.ciliumLB.prefixes, prefixes...)
				pool.Spec.Blocks = appendBlock(item, pool.Spec.Blocks, block)
			}
		}
	}
	pool.Spec.ServiceSelector = selectorAt(spec, "serviceSelector", ciliumServiceLabels)
	pool.Spec.Disabled, _ = spec.boolean("disabled")
	if c.ciliumLB.pools == 0 {
		s.warn("", "is converted to a LoadBalancerIPPool; once one exists kbgp's operator hands out the load-balancer addresses, so apply the pools only after Cilium's LB-IPAM has stopped (docs/migration.md); the advertisements announce inside their blocks meanwhile")
	}
	c.ciliumLB.pools++
	if len(pool.Spec.Blocks) == 0 {
		s.warn("", "has no address kbgp can use: no LoadBalancerIPPool generated")
		return
	}
	c.emit(s, pool)
}

// ciliumBlock converts one block, {cidr} or {start, stop}, into a LoadBalancerIPPool
// block and the prefixes that cover it. Cilium hands out every address of a block
// unless allowFirstLastIPs is No, which keeps back the first and last address of a CIDR
// of more than two: the block is then the range between them.
func ciliumBlock(item node, reserveEnds bool) (kbgpv1.IPBlock, []netip.Prefix, bool) {
	cidr, hasCIDR := item.str("cidr")
	start, hasStart := item.str("start")
	stop, hasStop := item.str("stop")
	switch {
	case hasCIDR && !hasStart && !hasStop:
		p, err := netip.ParsePrefix(cidr)
		if err != nil {
			item.child("cidr").warn("%q is not a CIDR: dropped", cidr)
			return kbgpv1.IPBlock{}, nil, false
		}
		p = network(item.child("cidr"), cidr, p, "Cilium")
		block := kbgpv1.IPBlock{CIDR: kbgpv1.CIDR(p.String())}
		if first, last := p.Addr(), kbgpv1.LastAddr(p); reserveEnds && first != last && first.Next() != last {
			block = kbgpv1.IPBlock{Start: kbgpv1.IPAddress(first.Next().String()), Stop: kbgpv1.IPAddress(last.Prev().String())}
		}
		return block, []netip.Prefix{p}, true
	case !hasCIDR && hasStart:
		if !hasStop {
			stop = start // Cilium: a start alone is one address
		}
		return rangeBlock(item, start, stop)
	}
	item.warn("is neither a cidr nor a start and stop: dropped")
	return kbgpv1.IPBlock{}, nil, false
}

// assembleCilium fills the load-balancer IP entries of the converted advertisements
// with the pools' prefixes, or says what to add when the input has no pool.
func (c *converter) assembleCilium() {
	lb := &c.ciliumLB
	for _, a := range lb.adverts {
		if len(lb.prefixes) == 0 {
			for _, item := range a.items {
				item.warn("is converted, but kbgp announces a load-balancer IP only inside a LoadBalancerIPPool or the advertisement's service.loadBalancerIPPrefixes, which Cilium does not have: convert your CiliumLoadBalancerIPPools together with the advertisement, or add the ranges Cilium's LB-IPAM hands out to loadBalancerIPPrefixes")
			}
			continue
		}
		prefixes := limitPrefixes(a.src, lb.prefixes)
		for _, svc := range a.services {
			svc.LoadBalancerIPPrefixes = prefixes
		}
	}
}
