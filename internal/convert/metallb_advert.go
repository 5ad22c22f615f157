package convert

import (
	"net/netip"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// MetalLBAdvertisementLabel labels the BGPAdvertisement converted from a MetalLB
// BGPAdvertisement with its name: MetalLB's advertisement names the peers it goes to,
// kbgp's peer config selects the advertisements it sends, by this label.
const MetalLBAdvertisementLabel = "convert.kbgp.io/metallb-advertisement"

// mlbAdv is a MetalLB BGPAdvertisement read, before the pools and peers it names are
// resolved.
type mlbAdv struct {
	src  *source
	obj  *kbgpv1.BGPAdvertisement
	spec node
	// label is the value of MetalLBAdvertisementLabel on the converted object.
	label string
	// poolNames and poolSelectors choose the IPAddressPools; neither: every pool.
	poolNames     []node
	poolSelectors []labels.Selector
	// peers are the BGPPeer names the advertisement goes to; none: every peer.
	peers       []string
	peerNodes   []node
	aliasesUsed []*source
	// aggregates is set when the advertisement announces aggregates, which kbgp
	// cannot: it is not converted.
	aggregates bool
}

// metallbAdvertisement reads a BGPAdvertisement: its attributes and Service selectors
// now, its pools and peers in assembleAdvertisement.
func (c *converter) metallbAdvertisement(s *source) {
	meta := c.meta(s)
	a := &mlbAdv{src: s, label: labelValue(s.name)}
	if meta.Labels == nil {
		meta.Labels = map[string]string{}
	}
	meta.Labels[MetalLBAdvertisementLabel] = a.label
	a.obj = &kbgpv1.BGPAdvertisement{TypeMeta: typeMeta("BGPAdvertisement"), ObjectMeta: meta}
	spec := s.top().obj("spec")
	a.spec = spec

	// An aggregating advertisement announces the aggregate instead of the host routes:
	// converted to host routes it would send its peers routes they never had, and
	// kbgp's own aggregation has rules MetalLB's has not, so it is left to be written.
	for _, f := range []struct {
		key  string
		host int64
	}{{"aggregationLength", 32}, {"aggregationLengthV6", 128}} {
		if v, ok := spec.int(f.key); ok && v != f.host {
			spec.child(f.key).warn("%d is not converted: kbgp aggregates only under its own rules (docs/advertisements.md#aggregation: load-balancer and external IPs of externalTrafficPolicy Cluster Services, the aggregate inside an allowed range and clear of node addresses, pod CIDRs and Service CIDRs), which the input does not say hold, and this advertisement announces aggregates instead of host routes (/%d): no BGPAdvertisement generated; write it with service.aggregationLengthIPv4/IPv6, or announce the aggregate from your router", v, f.host)
			a.aggregates = true
		}
	}
	attrs := &kbgpv1.BGPAttributes{Communities: c.metallbCommunities(a, spec)}
	if lp, ok := spec.intIn("localPref", 0, maxASN); ok {
		attrs.LocalPreference = &lp
	}
	if attrs.Communities == nil && attrs.LocalPreference == nil {
		attrs = nil
	}
	spec.drop("nodeSelectors", "has no kbgp equivalent: kbgp has no per-advertisement node selection, every node that peers announces the addresses (a BGPClusterConfig's nodeSelector says which nodes peer): dropped")

	a.poolNames = spec.list("ipAddressPools")
	for _, item := range spec.list("ipAddressPoolSelectors") {
		if !item.isObj() {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(selectorOf(item, nil).ToMetav1())
		if err != nil {
			item.warn("is not a valid label selector (%v): dropped", err)
			continue
		}
		a.poolSelectors = append(a.poolSelectors, sel)
	}
	// MetalLB reads an empty list, like none, as every peer.
	for _, item := range spec.list("peers") {
		if name, ok := item.asStr(); ok {
			a.peers = append(a.peers, name)
			a.peerNodes = append(a.peerNodes, item)
		}
	}

	// MetalLB ORs its serviceSelectors; kbgp gives each selector an entry of its own,
	// which announces the union.
	entry := kbgpv1.Advertisement{
		AdvertisementType: kbgpv1.AdvertisementService,
		Service:           &kbgpv1.ServiceAdvertisement{Addresses: []kbgpv1.ServiceAddressType{kbgpv1.ServiceLoadBalancerIP}},
		Attributes:        attrs,
	}
	for _, item := range spec.list("serviceSelectors") {
		if !item.isObj() {
			continue
		}
		e := *entry.DeepCopy()
		e.Selector = selectorOf(item, nil)
		a.obj.Spec.Advertisements = append(a.obj.Spec.Advertisements, e)
	}
	if len(a.obj.Spec.Advertisements) == 0 {
		a.obj.Spec.Advertisements = []kbgpv1.Advertisement{entry}
	}
	c.metallb.advs = append(c.metallb.advs, a)
}

// metallbCommunities converts a BGPAdvertisement's communities: "a:b",
// "large:a:b:c", or the name of an alias of a Community object.
func (c *converter) metallbCommunities(a *mlbAdv, spec node) *kbgpv1.BGPCommunities {
	var set communitySet
	for _, item := range spec.list("communities") {
		s, ok := item.asStr()
		if !ok {
			continue
		}
		if v, isLarge := strings.CutPrefix(s, "large:"); isLarge {
			if l, ok := largeCommunity(v); ok {
				set.large(l)
			} else {
				item.warn("%q is not a large community (large:a:b:c): dropped", s)
			}
			continue
		}
		if v, ok := standardCommunity(s); ok && strings.Contains(s, ":") {
			set.standard(v)
			continue
		}
		alias := c.metallb.communities[s]
		if alias == nil {
			item.warn("%q is neither a community nor an alias of a Community object in the input: dropped", s)
			continue
		}
		a.aliasesUsed = append(a.aliasesUsed, alias.from)
		if alias.large != "" {
			set.large(alias.large)
		} else {
			set.standard(alias.standard)
		}
	}
	return set.result()
}

// assembleAdvertisement resolves the pools of an advertisement into the
// loadBalancerIPPrefixes of its entries, checks its peers, and emits it.
func (c *converter) assembleAdvertisement(a *mlbAdv) {
	if a.aggregates {
		a.spec.consume() // reported whole
		return
	}
	var selected []*mlbPool
	restricted := len(a.poolNames) > 0 || len(a.poolSelectors) > 0
	for _, item := range a.poolNames {
		name, ok := item.asStr()
		if !ok {
			continue
		}
		i := slices.IndexFunc(c.metallb.pools, func(p *mlbPool) bool { return p.name == name })
		if i < 0 {
			item.warn("names IPAddressPool %s, which is not in the input: its addresses are not in loadBalancerIPPrefixes; add them, or convert the pool together with the advertisement", name)
			continue
		}
		selected = append(selected, c.metallb.pools[i])
	}
	for _, p := range c.metallb.pools {
		switch {
		case slices.Contains(selected, p):
		case !restricted:
			selected = append(selected, p)
		case slices.ContainsFunc(a.poolSelectors, func(sel labels.Selector) bool { return sel.Matches(labels.Set(p.labels)) }):
			selected = append(selected, p)
		}
	}
	var all []netip.Prefix
	for _, p := range selected {
		all = append(all, p.prefixes...)
	}
	prefixes := limitPrefixes(a.src, all)
	switch {
	case len(prefixes) == 0:
		a.src.warn("", "has no IPAddressPool of the input to take address ranges from: kbgp announces only the load-balancer IPs inside a LoadBalancerIPPool; add your ranges to service.loadBalancerIPPrefixes")
	case restricted:
		field := "spec.ipAddressPools"
		if len(a.poolNames) == 0 {
			field = "spec.ipAddressPoolSelectors"
		}
		a.src.warn(field, "is converted approximately: kbgp selects Services by label, not by pool; the advertisement announces the load-balancer IPs inside the selected pools' ranges (service.loadBalancerIPPrefixes) and, once LoadBalancerIPPools exist, inside any of them")
	}
	for i := range a.obj.Spec.Advertisements {
		a.obj.Spec.Advertisements[i].Service.LoadBalancerIPPrefixes = prefixes
	}
	for i, name := range a.peers {
		if !slices.ContainsFunc(c.metallb.peers, func(p *mlbPeer) bool { return p.src.name == name }) {
			a.peerNodes[i].warn("names BGPPeer %s, which is not in the input: no peer config selects this advertisement for it", name)
		}
	}
	c.emit(a.src, a.obj)
}

// appliesTo reports whether the advertisement goes to the BGPPeer named peer.
func (a *mlbAdv) appliesTo(peer string) bool {
	return !a.aggregates && (len(a.peers) == 0 || slices.Contains(a.peers, peer))
}
