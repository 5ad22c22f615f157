package convert

import (
	"net/netip"
	"slices"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// Limits of kbgp's BGPPeeringPolicy schema.
const (
	maxPolicyName     = 47
	maxVirtualRouters = 16
	maxNeighbors      = 32
)

// ciliumPeeringPolicy converts a CiliumBGPPeeringPolicy into kbgp's BGPPeeringPolicy,
// which has the same shape: kbgp's operator then generates the split objects from it
// as Cilium's agent did. What the kbgp policy lacks (pod IP pools, ClusterIP and
// ExternalIP announcements, per-neighbour path attributes) is reported.
func (c *converter) ciliumPeeringPolicy(s *source) {
	meta := c.meta(s)
	if len(meta.Name) > maxPolicyName {
		short := meta.Name[:maxPolicyName]
		s.warn("metadata.name", "is longer than the %d characters kbgp allows a BGPPeeringPolicy: shortened to %s", maxPolicyName, short)
		meta.Name = short
	}
	spec := s.top().obj("spec")
	p := &kbgpv1.BGPPeeringPolicy{TypeMeta: typeMeta("BGPPeeringPolicy"), ObjectMeta: meta}
	p.Spec.NodeSelector = selectorAt(spec, "nodeSelector", nil)
	for _, vr := range spec.list("virtualRouters") {
		r, ok := ciliumVirtualRouter(vr)
		if !ok {
			continue
		}
		if slices.ContainsFunc(p.Spec.VirtualRouters, func(o kbgpv1.BGPVirtualRouter) bool { return o.LocalASN == r.LocalASN }) {
			vr.warn("has the localASN %d of an earlier virtual router, and kbgp keys virtual routers by localASN: skipped", r.LocalASN)
			vr.consume()
			continue
		}
		if len(p.Spec.VirtualRouters) == maxVirtualRouters {
			vr.warn("is beyond the %d virtual routers kbgp allows: skipped", maxVirtualRouters)
			vr.consume()
			continue
		}
		p.Spec.VirtualRouters = append(p.Spec.VirtualRouters, r)
	}
	if len(p.Spec.VirtualRouters) == 0 {
		s.warn("", "has no virtual router kbgp can run: no BGPPeeringPolicy generated")
		return
	}
	c.emit(s, p)
}

// ciliumVirtualRouter converts one virtual router; false, with the reason reported,
// when it cannot be.
func ciliumVirtualRouter(vr node) (kbgpv1.BGPVirtualRouter, bool) {
	if !vr.isObj() {
		return kbgpv1.BGPVirtualRouter{}, false
	}
	asn, ok := vr.int("localASN")
	if !ok || asn < 1 || asn > maxASN {
		vr.warn("has no localASN in 1..%d, which kbgp requires: skipped", int64(maxASN))
		vr.consume()
		return kbgpv1.BGPVirtualRouter{}, false
	}
	r := kbgpv1.BGPVirtualRouter{LocalASN: asn}
	r.ExportPodCIDR, _ = vr.boolean("exportPodCIDR")
	if r.ExportPodCIDR {
		vr.child("exportPodCIDR").warn("%s", podCIDRSource)
	}
	vr.drop("podIPPoolSelector", "has no kbgp equivalent: kbgp announces the Node's spec.podCIDRs only, not CiliumPodIPPool allocations: dropped")

	// Cilium announces the addresses its serviceAdvertisements name (default
	// LoadBalancerIP) of the Services serviceSelector selects; kbgp's peering policy
	// announces load-balancer IPs only.
	kinds := []string{"LoadBalancerIP"}
	if vr.has("serviceAdvertisements") {
		kinds = nil
		for _, item := range vr.list("serviceAdvertisements") {
			kind, ok := item.asStr()
			switch {
			case !ok:
			case kind == "LoadBalancerIP":
				kinds = append(kinds, kind)
			default:
				item.warn("%s: kbgp's BGPPeeringPolicy announces load-balancer IPs only: dropped; announce %s addresses with a BGPAdvertisement (convert the Cilium v2 kinds)", kind, kind)
			}
		}
	}
	if sel := selectorAt(vr, "serviceSelector", ciliumServiceLabels); sel != nil {
		if len(kinds) == 0 {
			vr.child("serviceSelector").warn("selects Services none of whose addresses kbgp's BGPPeeringPolicy announces: dropped")
		} else {
			r.ServiceSelector = sel
			vr.child("serviceSelector").warn("is converted, but kbgp announces a load-balancer IP only inside a LoadBalancerIPPool or an advertisement's loadBalancerIPPrefixes, which a BGPPeeringPolicy cannot list: while Cilium's LB-IPAM hands out the addresses, announce them with the split kinds instead")
		}
	}

	r.Neighbors = ciliumNeighbors(vr)
	if len(r.Neighbors) == 0 {
		vr.warn("has no neighbour kbgp can peer with: skipped")
		return kbgpv1.BGPVirtualRouter{}, false
	}
	return r, true
}

// ciliumNeighbors converts the neighbours of a virtual router. Cilium keys them by
// address and ASN, a later one replacing an earlier one (its NeighborReconciler);
// kbgp by address alone.
func ciliumNeighbors(vr node) []kbgpv1.BGPNeighbor {
	var out []kbgpv1.BGPNeighbor
	var from []node // the input neighbour of each of out
	for _, n := range vr.list("neighbors") {
		nb, ok := ciliumNeighbor(n)
		if !ok {
			continue
		}
		addr := neighborAddr(nb.PeerAddress)
		i := slices.IndexFunc(out, func(o kbgpv1.BGPNeighbor) bool { return neighborAddr(o.PeerAddress) == addr })
		switch {
		case i >= 0 && out[i].PeerASN == nb.PeerASN:
			from[i].warn("has the peerAddress and peerASN of a later neighbour of this virtual router, which Cilium uses instead: skipped")
			out[i], from[i] = nb, n
		case i >= 0:
			n.warn("has the peerAddress of an earlier neighbour of this virtual router: skipped")
			n.consume()
		case len(out) == maxNeighbors:
			n.warn("is beyond the %d neighbours kbgp allows per virtual router: skipped", maxNeighbors)
			n.consume()
		default:
			out = append(out, nb)
			from = append(from, n)
		}
	}
	return out
}

// ciliumNeighbor converts one neighbour of a virtual router.
func ciliumNeighbor(n node) (kbgpv1.BGPNeighbor, bool) {
	if !n.isObj() {
		return kbgpv1.BGPNeighbor{}, false
	}
	addrNode := n.child("peerAddress")
	addr, ok := addrNode.asStr()
	if ok {
		addr, ok = neighborAddress(addrNode, addr)
	}
	if !ok {
		if !addrNode.ok {
			n.warn("has no peerAddress: skipped")
		}
		n.consume()
		return kbgpv1.BGPNeighbor{}, false
	}
	asn, ok := n.int("peerASN")
	if !ok || asn < 1 || asn > maxASN {
		n.warn("has no peerASN in 1..%d (kbgp has no \"any ASN\" 0): skipped", int64(maxASN))
		n.consume()
		return kbgpv1.BGPNeighbor{}, false
	}
	nb := kbgpv1.BGPNeighbor{
		PeerAddress:             addr,
		PeerASN:                 asn,
		PeerPort:                n.int32In("peerPort", 1, 65535),
		EBGPMultihopTTL:         n.int32In("eBGPMultihopTTL", 1, 255),
		ConnectRetryTimeSeconds: n.int32In("connectRetryTimeSeconds", 1, 2147483647),
		HoldTimeSeconds:         n.int32In("holdTimeSeconds", 3, 65535),
		KeepAliveTimeSeconds:    n.int32In("keepAliveTimeSeconds", 1, 65535),
		GracefulRestart:         ciliumGracefulRestart(n),
		AuthSecretRef:           ciliumAuthSecret(n),
	}
	ciliumFamilies(n, func(_ node, afi kbgpv1.AFI) {
		nb.Families = append(nb.Families, kbgpv1.BGPNeighborFamily{AFI: afi, SAFI: kbgpv1.SAFIUnicast})
	})
	n.drop("advertisedPathAttributes", "has no equivalent in kbgp's BGPPeeringPolicy: dropped; to set communities or local preference, write the split kinds and put them in a BGPAdvertisement's attributes")
	return nb, true
}

// neighborAddress is a neighbour's peerAddress as kbgp's BGPPeeringPolicy takes it: an
// address, or one written as a /32 or /128 prefix. Cilium requires a prefix and peers
// with its address part whatever the length (netip.ParsePrefix(...).Addr() in its
// GoBGP server), so 10.47.1.1/24 is the neighbour 10.47.1.1: written as such, with a
// warning, since a length other than the host's is more likely a slip than meant.
func neighborAddress(n node, s string) (string, bool) {
	if a, err := netip.ParseAddr(s); err == nil && a.Zone() == "" {
		return s, true
	}
	p, err := netip.ParsePrefix(s)
	if err != nil {
		n.warn("%q is not an address (IP, IP/32 or IP/128): neighbour skipped", s)
		return "", false
	}
	if p.Bits() == p.Addr().BitLen() {
		return s, true
	}
	host := netip.PrefixFrom(p.Addr(), p.Addr().BitLen()).String()
	n.warn("%q is written as %s: Cilium peers with the address and ignores the prefix length, kbgp takes the address alone; check that %s is your router's address", s, host, p.Addr())
	return host, true
}

// neighborAddr is the address of a neighbour, without the prefix length.
func neighborAddr(s string) netip.Addr {
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Unmap()
	}
	p, _ := netip.ParsePrefix(s)
	return p.Addr().Unmap()
}
