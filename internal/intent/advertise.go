package intent

import (
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
)

// familyAdvertisements is one family of a peer with the selector of the
// BGPAdvertisements it sends (nil: nothing).
type familyAdvertisements struct {
	family   bgp.Family
	selector *kbgpv1.LabelSelector
}

// peerAdvertisements splits what the peer's families select into the node's own paths
// (pod CIDRs, node addresses) and the Service rules that each Service is matched
// against (see exports.Index). Local preference is kept for iBGP peers only, AS-path
// prepend for eBGP peers only.
func peerAdvertisements(in Input, fams []familyAdvertisements, localASN uint32, ibgp bool) (pods []bgp.Path, rules []serviceRule) {
	if in.Node == nil {
		return nil, nil
	}
	for _, fa := range fams {
		sel, ok := selector(fa.selector)
		if !ok {
			continue
		}
		for _, adv := range in.Advertisements {
			if !sel.Matches(labels.Set(adv.Labels)) {
				continue
			}
			for _, a := range adv.Spec.Advertisements {
				attrs := attributes(a.Attributes, localASN, ibgp)
				switch a.AdvertisementType {
				case kbgpv1.AdvertisementPodCIDR:
					for _, p := range podCIDRs(in.Node, fa.family) {
						pods = append(pods, bgp.Path{Prefix: p, Attributes: attrs})
					}
				case kbgpv1.AdvertisementNodeAddress:
					for _, p := range nodeAddressRoutes(in, a.NodeAddress, fa.family) {
						pods = append(pods, bgp.Path{Prefix: p, Attributes: attrs})
					}
				case kbgpv1.AdvertisementService:
					if r, ok := newServiceRule(adv.Name, a, fa.family, attrs, in); ok {
						if a.Attributes != nil && a.Attributes.WeightedECMP {
							r.weighted, r.bandwidthASN = map[uint32]*bgp.PathAttributes{}, localASN
						}
						rules = append(rules, r)
					}
				}
			}
		}
	}
	return pods, rules
}

// newServiceRule compiles a Service entry of advertisement; one without addresses or
// with a selector that does not compile (the schema prevents both) selects nothing.
func newServiceRule(advertisement string, a kbgpv1.Advertisement, fam bgp.Family, attrs bgp.PathAttributes, in Input) (serviceRule, bool) {
	if a.Service == nil {
		return serviceRule{}, false
	}
	sel := labels.Everything()
	if a.Selector != nil {
		s, ok := selector(a.Selector)
		if !ok {
			return serviceRule{}, false
		}
		sel = s
	}
	return serviceRule{family: fam, selector: sel, entry: a, attrs: attrs, advertisement: advertisement, aggregates: &aggregates{},
		allowedRanges: newAllowedRanges(a.Service, in.poolRanges, in.nodeOwned, in.Reserved)}, true
}

// selector converts a peer family's selector; nil selects nothing.
func selector(s *kbgpv1.LabelSelector) (labels.Selector, bool) {
	if s == nil {
		return nil, false
	}
	sel, err := metav1.LabelSelectorAsSelector(s.ToMetav1())
	if err != nil {
		// The schema validates selectors; one that still fails selects nothing.
		return nil, false
	}
	return sel, true
}

func podCIDRs(node *corev1.Node, fam bgp.Family) []netip.Prefix {
	cidrs := node.Spec.PodCIDRs
	if len(cidrs) == 0 && node.Spec.PodCIDR != "" {
		cidrs = []string{node.Spec.PodCIDR}
	}
	var out []netip.Prefix
	for _, c := range cidrs {
		p, err := netip.ParsePrefix(c)
		if err != nil || p.Addr().Is6() != (fam == bgp.FamilyIPv6Unicast) {
			continue
		}
		out = append(out, p.Masked())
	}
	return out
}
