package convert

import (
	"encoding/json"
	"net/netip"
	"slices"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// Cilium's v2 BGP kinds are the model of kbgp's split kinds: most fields keep their
// names. What differs: Cilium names its BGP instances and kbgp keys them by localASN;
// kbgp needs every peer's address and ASN; a Cilium Service advertisement without a
// selector announces nothing where kbgp's would announce everything.

// Limits of kbgp's BGPClusterConfig schema.
const (
	maxInstances = 16
	maxPeers     = 32
)

// indexCiliumInstances records the local ASN of every named instance of a
// CiliumBGPClusterConfig, so that an override, which names instances, can be keyed by
// ASN as kbgp's are. It reads the raw object and records nothing as read: the cluster
// config's own conversion does that.
func (c *converter) indexCiliumInstances(s *source) {
	spec, _ := s.root["spec"].(map[string]any)
	instances, _ := spec["bgpInstances"].([]any)
	for _, item := range instances {
		inst, _ := item.(map[string]any)
		name, _ := inst["name"].(string)
		num, _ := inst["localASN"].(json.Number)
		asn, err := num.Int64()
		if name == "" || err != nil || asn < 1 || asn > maxASN || slices.Contains(c.ciliumInstances[name], asn) {
			continue
		}
		c.ciliumInstances[name] = append(c.ciliumInstances[name], asn)
	}
}

// ciliumClusterConfig converts a CiliumBGPClusterConfig into a BGPClusterConfig.
func (c *converter) ciliumClusterConfig(s *source) {
	cc := &kbgpv1.BGPClusterConfig{TypeMeta: typeMeta("BGPClusterConfig"), ObjectMeta: c.meta(s)}
	spec := s.top().obj("spec")
	cc.Spec.NodeSelector = selectorAt(spec, "nodeSelector", nil)
	for _, in := range spec.list("bgpInstances") {
		if !in.isObj() {
			continue
		}
		in.ignore("name") // the key Cilium's overrides use; kbgp's use localASN (ciliumNodeConfigOverride)
		asn, ok := in.int("localASN")
		switch {
		case !ok || asn < 1 || asn > maxASN:
			in.warn("has no localASN in 1..%d, which kbgp requires (it keys instances by localASN): skipped", int64(maxASN))
			in.consume()
			continue
		case slices.ContainsFunc(cc.Spec.BGPInstances, func(o kbgpv1.BGPInstance) bool { return o.LocalASN == asn }):
			in.warn("has the localASN %d of an earlier instance, and kbgp keys instances by localASN: skipped", asn)
			in.consume()
			continue
		case len(cc.Spec.BGPInstances) == maxInstances:
			in.warn("is beyond the %d instances kbgp allows: skipped", maxInstances)
			in.consume()
			continue
		}
		inst := kbgpv1.BGPInstance{BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: asn, LocalPort: in.int32In("localPort", 1, 65535)}}
		for _, p := range in.list("peers") {
			if peer, ok := ciliumPeer(p, inst.Peers); ok {
				inst.Peers = append(inst.Peers, peer)
			}
		}
		cc.Spec.BGPInstances = append(cc.Spec.BGPInstances, inst)
	}
	if len(cc.Spec.BGPInstances) == 0 {
		s.warn("", "has no BGP instance kbgp can run: no BGPClusterConfig generated")
		return
	}
	c.emit(s, cc)
}

// ciliumPeer converts one peer of an instance, given the peers converted before it.
func ciliumPeer(p node, earlier []kbgpv1.BGPPeer) (kbgpv1.BGPPeer, bool) {
	if !p.isObj() {
		return kbgpv1.BGPPeer{}, false
	}
	skip := func(format string, args ...any) (kbgpv1.BGPPeer, bool) {
		p.warn(format, args...)
		p.consume()
		return kbgpv1.BGPPeer{}, false
	}
	name, _ := p.str("name")
	name = peerName(p.child("name"), name)
	if p.has("autoDiscovery") {
		return skip("uses autoDiscovery (default gateway or unnumbered), which kbgp does not have: kbgp peers with a configured address only: skipped")
	}
	addrNode := p.child("peerAddress")
	s, ok := addrNode.asStr()
	if !ok {
		return skip("has no peerAddress, which kbgp requires: skipped")
	}
	addr, err := netip.ParseAddr(s)
	if err != nil || addr.Zone() != "" {
		return skip("has peerAddress %q, which is not an IP address kbgp accepts (no zone): skipped", s)
	}
	asn, ok := p.int("peerASN")
	if !ok || asn < 1 || asn > maxASN {
		return skip("has no peerASN in 1..%d: Cilium's peerASN 0 learns any ASN from the OPEN, kbgp's dynamicASN only an internal or an external one (set it by hand): skipped", int64(maxASN))
	}
	for _, o := range earlier {
		if o.Name == name {
			return skip("has the name %s of an earlier peer of this instance: skipped", name)
		}
		if netip.MustParseAddr(o.PeerAddress).Unmap() == addr.Unmap() {
			return skip("has the peerAddress of earlier peer %s of this instance: skipped", o.Name)
		}
	}
	if len(earlier) == maxPeers {
		return skip("is beyond the %d peers kbgp allows per instance: skipped", maxPeers)
	}
	peer := kbgpv1.BGPPeer{Name: name, PeerAddress: addr.String(), PeerASN: asn}
	if ref := p.obj("peerConfigRef"); ref.ok {
		kind, hasKind := ref.str("kind")
		ref.ignore("group")
		refName, _ := ref.str("name")
		switch {
		case hasKind && kind != "CiliumBGPPeerConfig":
			ref.child("kind").warn("%s: kbgp peers refer to BGPPeerConfigs only: peerConfigRef dropped", kind)
		case refName != "":
			peer.PeerConfigRef = &kbgpv1.PeerConfigReference{Name: refName}
		}
	}
	return peer, true
}

// ciliumPeerConfig converts a CiliumBGPPeerConfig into a BGPPeerConfig.
func (c *converter) ciliumPeerConfig(s *source) {
	pc := &kbgpv1.BGPPeerConfig{TypeMeta: typeMeta("BGPPeerConfig"), ObjectMeta: c.meta(s)}
	spec := s.top().obj("spec")
	if t := spec.obj("transport"); t.ok {
		pc.Spec.Transport = &kbgpv1.BGPTransport{PeerPort: t.int32In("peerPort", 1, 65535)}
		// Older versions had localPort, defaulted to 179 and not used as a source port.
		t.drop("localPort", "is not carried over: kbgp would use it as the session's source port, which Cilium did not; set transport.localPort of the BGPPeerConfig for a fixed source port: dropped")
	}
	if t := spec.obj("timers"); t.ok {
		pc.Spec.Timers = &kbgpv1.BGPTimers{
			ConnectRetryTimeSeconds: t.int32In("connectRetryTimeSeconds", 1, 2147483647),
			HoldTimeSeconds:         t.int32In("holdTimeSeconds", 3, 65535),
			KeepAliveTimeSeconds:    t.int32In("keepAliveTimeSeconds", 1, 65535),
		}
	}
	pc.Spec.AuthSecretRef = ciliumAuthSecret(spec)
	pc.Spec.GracefulRestart = ciliumGracefulRestart(spec)
	pc.Spec.EBGPMultihop = spec.int32In("ebgpMultihop", 1, 255)
	ciliumFamilies(spec, func(item node, afi kbgpv1.AFI) {
		pc.Spec.Families = append(pc.Spec.Families, kbgpv1.BGPFamily{
			AFI: afi, SAFI: kbgpv1.SAFIUnicast,
			Advertisements: selectorAt(item, "advertisements", nil),
		})
	})
	c.emit(s, pc)
}

// ciliumAdvertisement converts a CiliumBGPAdvertisement into a BGPAdvertisement with
// the same labels, which the peer configs' advertisements selectors match.
func (c *converter) ciliumAdvertisement(s *source) {
	adv := &kbgpv1.BGPAdvertisement{TypeMeta: typeMeta("BGPAdvertisement"), ObjectMeta: c.meta(s)}
	spec := s.top().obj("spec")
	lb := ciliumLBAdvert{src: s}
	for _, a := range spec.list("advertisements") {
		entry, lbItem, ok := ciliumAdvertisementEntry(a)
		if !ok {
			continue
		}
		adv.Spec.Advertisements = append(adv.Spec.Advertisements, entry)
		if lbItem.ok && len(adv.Spec.Advertisements) <= 32 {
			lb.services = append(lb.services, entry.Service)
			lb.items = append(lb.items, lbItem)
		}
	}
	if len(adv.Spec.Advertisements) == 0 {
		s.warn("", "has no advertisement kbgp can make: no BGPAdvertisement generated")
		return
	}
	if len(adv.Spec.Advertisements) > 32 {
		s.warn("spec.advertisements", "has more than the 32 entries kbgp allows: the rest dropped")
		adv.Spec.Advertisements = adv.Spec.Advertisements[:32]
	}
	if len(lb.services) > 0 {
		c.ciliumLB.adverts = append(c.ciliumLB.adverts, lb)
	}
	c.emit(s, adv)
}

// ciliumAdvertisementEntry converts one entry of spec.advertisements; lbItem is its
// LoadBalancerIP item of service.addresses, if any (assembleCilium).
func ciliumAdvertisementEntry(a node) (entry kbgpv1.Advertisement, lbItem node, ok bool) {
	if !a.isObj() {
		return kbgpv1.Advertisement{}, node{}, false
	}
	typ, _ := a.str("advertisementType")
	switch typ {
	case "PodCIDR":
		entry.AdvertisementType = kbgpv1.AdvertisementPodCIDR
		a.child("advertisementType").warn("PodCIDR %s", podCIDRSource)
		a.drop("selector", "is not used for PodCIDR advertisements (kbgp announces the node's own spec.podCIDRs): dropped")
		a.drop("service", "is not used for PodCIDR advertisements: dropped")
	case "Service":
		entry.AdvertisementType = kbgpv1.AdvertisementService
		svc := a.obj("service")
		entry.Service, lbItem = ciliumServiceAddresses(svc)
		if entry.Service == nil {
			a.warn("announces no Service address kbgp knows (LoadBalancerIP, ClusterIP, ExternalIP): skipped")
			a.consume()
			return kbgpv1.Advertisement{}, node{}, false
		}
		// Aggregating announces the aggregate instead of the host routes: converted to
		// host routes the entry would send routes the peers never had, and kbgp's own
		// aggregation has rules Cilium's has not, so the entry is left to be written.
		aggregates := false
		for _, f := range []struct {
			key  string
			host int64
		}{{"aggregationLengthIPv4", 32}, {"aggregationLengthIPv6", 128}} {
			if v, ok := svc.int(f.key); ok && v != f.host {
				svc.child(f.key).warn("%d is not converted: kbgp aggregates only under its own rules (docs/advertisements.md#aggregation: load-balancer and external IPs of externalTrafficPolicy Cluster Services, the aggregate inside an allowed range and clear of node addresses, pod CIDRs and Service CIDRs), which the input does not say hold, and this entry announces aggregates instead of host routes (/%d): entry skipped; write it as a kbgp advertisement with service.%s, or announce the aggregate from your router", v, f.host, f.key)
				aggregates = true
			}
		}
		if aggregates {
			a.consume()
			return kbgpv1.Advertisement{}, node{}, false
		}
		entry.Selector = selectorAt(a, "selector", ciliumServiceLabels)
		if entry.Selector == nil {
			// Cilium: no selector, no Service. kbgp: no selector, every Service.
			a.warn("has no selector, so Cilium announces no Service with it (a kbgp advertisement without selector would announce every Service): skipped")
			a.consume()
			return kbgpv1.Advertisement{}, node{}, false
		}
	default:
		a.warn("is of advertisementType %q, which kbgp does not have (kbgp announces PodCIDR and Service only): skipped", typ)
		a.consume()
		return kbgpv1.Advertisement{}, node{}, false
	}
	if at := a.obj("attributes"); at.ok {
		attrs := &kbgpv1.BGPAttributes{Communities: ciliumCommunities(at.obj("communities"))}
		if lp, ok := at.intIn("localPreference", 0, maxASN); ok {
			attrs.LocalPreference = &lp
		}
		if attrs.Communities != nil || attrs.LocalPreference != nil {
			entry.Attributes = attrs
		}
	}
	return entry, lbItem, true
}

// ciliumServiceAddresses converts service.addresses, and returns its LoadBalancerIP
// item, if any. kbgp announces a load-balancer or external IP only inside ranges the
// advertisement lists, which Cilium does not have: the load-balancer IP ranges come
// from the pools of the input (assembleCilium), a warning asks for the external ones.
func ciliumServiceAddresses(svc node) (out *kbgpv1.ServiceAdvertisement, lbItem node) {
	out = &kbgpv1.ServiceAdvertisement{}
	for _, item := range svc.list("addresses") {
		s, ok := item.asStr()
		kind := kbgpv1.ServiceAddressType(s)
		switch {
		case !ok:
			continue
		case kind != kbgpv1.ServiceLoadBalancerIP && kind != kbgpv1.ServiceClusterIP && kind != kbgpv1.ServiceExternalIP:
			item.warn("%q is not a Service address kbgp announces: dropped", s)
			continue
		case slices.Contains(out.Addresses, kind):
			continue
		case kind == kbgpv1.ServiceLoadBalancerIP:
			lbItem = item
		case kind == kbgpv1.ServiceExternalIP:
			item.warn("is converted, but kbgp announces an external IP only inside the advertisement's service.externalIPPrefixes, which Cilium does not have: add the ranges your Services' externalIPs lie in")
		}
		out.Addresses = append(out.Addresses, kind)
	}
	if len(out.Addresses) == 0 {
		return nil, node{}
	}
	return out, lbItem
}

// ciliumNodeConfigOverride converts a CiliumBGPNodeConfigOverride, named after its
// node, into a BGPNodeConfigOverride with nodeRef. Cilium names the instance to
// override; kbgp keys it by localASN, which the instance name is resolved to through
// the CiliumBGPClusterConfigs of the same input.
func (c *converter) ciliumNodeConfigOverride(s *source) {
	ov := &kbgpv1.BGPNodeConfigOverride{TypeMeta: typeMeta("BGPNodeConfigOverride"), ObjectMeta: c.meta(s)}
	ov.Spec.NodeRef = ov.Name
	spec := s.top().obj("spec")
	for _, in := range spec.list("bgpInstances") {
		if !in.isObj() {
			continue
		}
		name, _ := in.str("name")
		asns := c.ciliumInstances[name]
		if len(asns) != 1 {
			if len(asns) == 0 {
				in.warn("names instance %q, which no CiliumBGPClusterConfig of the input has with a localASN; kbgp keys overrides by localASN: skipped (convert the override together with its cluster config)", name)
			} else {
				in.warn("names instance %q, which the CiliumBGPClusterConfigs of the input have with several local ASNs %v; kbgp keys overrides by localASN: skipped", name, asns)
			}
			in.consume()
			continue
		}
		if slices.ContainsFunc(ov.Spec.BGPInstances, func(o kbgpv1.BGPInstanceOverride) bool { return o.LocalASN == asns[0] }) {
			in.warn("overrides instance %q (localASN %d) a second time: skipped", name, asns[0])
			in.consume()
			continue
		}
		io := kbgpv1.BGPInstanceOverride{LocalASN: asns[0], LocalPort: in.int32In("localPort", 1, 65535)}
		if id := in.child("routerID"); id.ok {
			if s, ok := id.asStr(); ok {
				if a, err := netip.ParseAddr(s); err == nil && a.Is4() && a.IsGlobalUnicast() {
					io.RouterID = kbgpv1.IPv4RouterID(a.String())
				} else {
					id.warn("%q is not an IPv4 address kbgp accepts as router ID: dropped", s)
				}
			}
		}
		if asn, ok := in.intIn("localASN", 1, maxASN); ok {
			io.NodeLocalASN = asn
		}
		for _, p := range in.list("peers") {
			if !p.isObj() {
				continue
			}
			pn, _ := p.str("name")
			po := kbgpv1.BGPPeerOverride{Name: peerName(p.child("name"), pn)}
			if la := p.child("localAddress"); la.ok {
				if s, ok := la.asStr(); ok {
					if a, err := netip.ParseAddr(s); err == nil && a.Zone() == "" {
						po.LocalAddress = a.String()
					} else {
						la.warn("%q is not an IP address kbgp accepts (no zone): dropped", s)
					}
				}
			}
			p.drop("localPort", "has no effect in Cilium (deprecated), while kbgp would use it as the session's source port: dropped")
			io.Peers = append(io.Peers, po)
		}
		ov.Spec.BGPInstances = append(ov.Spec.BGPInstances, io)
	}
	if len(ov.Spec.BGPInstances) == 0 {
		s.warn("", "overrides no instance kbgp can key: no BGPNodeConfigOverride generated")
		return
	}
	c.emit(s, ov)
}
