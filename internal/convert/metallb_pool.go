package convert

import (
	"net/netip"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// mlbPool is a MetalLB IPAddressPool as the advertisements need it: its labels (for
// ipAddressPoolSelectors) and its addresses as prefixes.
type mlbPool struct {
	name     string
	labels   map[string]string
	prefixes []netip.Prefix
}

// metallbPool converts an IPAddressPool into a LoadBalancerIPPool: the same
// addresses, as CIDR or start/stop blocks.
func (c *converter) metallbPool(s *source) {
	pool := &kbgpv1.LoadBalancerIPPool{TypeMeta: typeMeta("LoadBalancerIPPool"), ObjectMeta: c.meta(s)}
	spec := s.top().obj("spec")
	mp := &mlbPool{name: s.name, labels: pool.Labels}
	for _, item := range spec.list("addresses") {
		a, ok := item.asStr()
		if !ok {
			continue
		}
		block, prefixes, ok := addressBlock(item, a)
		if ok {
			mp.prefixes = append(mp.prefixes, prefixes...)
			pool.Spec.Blocks = appendBlock(item, pool.Spec.Blocks, block)
		}
	}
	if auto, ok := spec.boolean("autoAssign"); ok && !auto {
		pool.Spec.Disabled = true
		spec.child("autoAssign").warn("false is converted to disabled: true, which also refuses the addresses Services request by name (kbgp.io/load-balancer-ips), while MetalLB still hands those out")
	}
	pool.Spec.AvoidBuggyIPs, _ = spec.boolean("avoidBuggyIPs")
	pool.Spec.ServiceSelector = serviceAllocation(spec.obj("serviceAllocation"))

	if len(c.metallb.pools) == 0 {
		s.warn("", "is converted to a LoadBalancerIPPool; once one exists kbgp's operator hands out the load-balancer addresses, so apply the pools only after MetalLB's controller has stopped (docs/migration.md)")
	}
	c.metallb.pools = append(c.metallb.pools, mp)
	if len(pool.Spec.Blocks) == 0 {
		s.warn("", "has no address kbgp can use: no LoadBalancerIPPool generated")
		return
	}
	c.emit(s, pool)
}

// serviceAllocation converts an IPAddressPool's serviceAllocation into kbgp's single
// serviceSelector. MetalLB's namespaces become a requirement on the pseudo-label
// kbgp.io/service-namespace; what one selector cannot hold is reported, and since the
// pool then serves more Services than before, the warning says so.
func serviceAllocation(sa node) *kbgpv1.LabelSelector {
	if !sa.ok {
		return nil
	}
	sa.drop("priority", "has no kbgp equivalent (kbgp tries the pools a Service may use by name): dropped")
	var sel *kbgpv1.LabelSelector
	selectors := sa.list("serviceSelectors")
	switch {
	case len(selectors) == 1:
		if selectors[0].isObj() {
			sel = selectorOf(selectors[0], nil)
		}
	case len(selectors) > 1:
		for _, s := range selectors {
			s.consume()
		}
		sa.child("serviceSelectors").warn("has %d selectors, any of which MetalLB accepts; kbgp's serviceSelector is one selector: dropped, the pool serves Services these do not select too", len(selectors))
	}
	namespaces := sa.strList("namespaces")
	if len(namespaces) > 0 {
		if sel == nil {
			sel = &kbgpv1.LabelSelector{}
		}
		req := kbgpv1.LabelSelectorRequirement{Key: kbgpv1.LabelServiceNamespace, Operator: "In"}
		for _, ns := range namespaces {
			req.Values = append(req.Values, kbgpv1.LabelValue(ns))
		}
		sel.MatchExpressions = append(sel.MatchExpressions, req)
	}
	if sa.has("namespaceSelectors") {
		if len(namespaces) > 0 {
			sa.drop("namespaceSelectors", "selects namespaces by their labels, which kbgp cannot: dropped, the pool serves only the namespaces listed in namespaces")
		} else {
			sa.drop("namespaceSelectors", "selects namespaces by their labels, which kbgp cannot: dropped, the pool serves Services of every namespace")
		}
	}
	return sel
}
