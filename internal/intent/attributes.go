package intent

import (
	"net/netip"

	corev1 "k8s.io/api/core/v1"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
)

// attributes converts an advertisement's attributes for a peer of the instance with
// localASN. Values the schema admitted always parse; one that does not is skipped
// rather than failing the whole advertisement. Local preference goes to iBGP peers
// only, the AS-path prepend to eBGP peers only (an iBGP peer would see its own AS in
// the path and drop the route as a loop), the MED to both.
func attributes(a *kbgpv1.BGPAttributes, localASN uint32, ibgp bool) bgp.PathAttributes {
	var out bgp.PathAttributes
	if a == nil {
		return out
	}
	if c := a.Communities; c != nil {
		for _, s := range c.Standard {
			if v, err := kbgpv1.ParseStandardCommunity(string(s)); err == nil {
				out.Communities = append(out.Communities, v)
			}
		}
		for _, s := range c.WellKnown {
			if v, err := kbgpv1.ParseWellKnownCommunity(string(s)); err == nil {
				out.Communities = append(out.Communities, v)
			}
		}
		for _, s := range c.Large {
			if v, err := kbgpv1.ParseLargeCommunity(string(s)); err == nil {
				out.LargeCommunities = append(out.LargeCommunities, bgp.LargeCommunity{GlobalAdmin: v[0], LocalData1: v[1], LocalData2: v[2]})
			}
		}
	}
	if ibgp && a.LocalPreference != nil {
		lp := uint32(*a.LocalPreference)
		out.LocalPreference = &lp
	}
	if p := a.ASPathPrepend; !ibgp && p != nil && p.Count > 0 {
		out.Prepend = bgp.ASPathPrepend{ASN: localASN, Count: uint8(min(p.Count, 255))}
		if p.ASN != nil {
			out.Prepend.ASN = uint32(*p.ASN)
		}
	}
	if a.MED != nil {
		med := uint32(*a.MED)
		out.MED = &med
	}
	return out.Normalised()
}

// crossFamilyNextHop sets, on what a peer at peerAddr is sent of the other address
// family, the Node's InternalIP of that family as the next hop. A speaker would put
// the session's own address there: an IPv6 next hop for IPv4 routes, which a router
// that did not negotiate RFC 8950 cannot use, or an IPv4-mapped IPv6 address for IPv6
// routes, which no kernel routes through. Without an InternalIP of the family the
// speaker's choice stays.
func crossFamilyNextHop(node *corev1.Node, peerAddr netip.Addr, pods []bgp.Path, rules []serviceRule) {
	if node == nil {
		return
	}
	var nh netip.Addr
	for _, a := range node.Status.Addresses {
		if addr, err := netip.ParseAddr(a.Address); err == nil && a.Type == corev1.NodeInternalIP && addr.Unmap().Is4() != peerAddr.Unmap().Is4() {
			nh = addr.Unmap()
			break
		}
	}
	if !nh.IsValid() {
		return
	}
	for i := range pods {
		if pods[i].Prefix.Addr().Is4() == nh.Is4() {
			pods[i].Attributes.NextHop = nh
		}
	}
	for i := range rules {
		if (rules[i].family == bgp.FamilyIPv4Unicast) == nh.Is4() {
			rules[i].attrs.NextHop = nh
		}
	}
}
