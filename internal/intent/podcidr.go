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

// podCIDRPaths returns the node's pod CIDRs that the peer's families select, each
// once, with the union of the communities and the highest local preference of every
// advertisement that selects it. Local preference is kept for iBGP peers only.
func podCIDRPaths(all []kbgpv1.BGPAdvertisement, fams []familyAdvertisements, node *corev1.Node, ibgp bool) []bgp.Path {
	if node == nil {
		return nil
	}
	byPrefix := map[netip.Prefix]bgp.PathAttributes{}
	var order []netip.Prefix
	for _, fa := range fams {
		sel, ok := selector(fa.selector)
		if !ok {
			continue
		}
		for _, adv := range all {
			if !sel.Matches(labels.Set(adv.Labels)) {
				continue
			}
			for _, a := range adv.Spec.Advertisements {
				if a.AdvertisementType != kbgpv1.AdvertisementPodCIDR {
					continue
				}
				attrs := attributes(a.Attributes, ibgp)
				for _, p := range podCIDRs(node, fa.family) {
					if _, seen := byPrefix[p]; !seen {
						order = append(order, p)
					}
					byPrefix[p] = mergeAttributes(byPrefix[p], attrs)
				}
			}
		}
	}
	out := make([]bgp.Path, 0, len(order))
	for _, p := range order {
		out = append(out, bgp.Path{Prefix: p, Attributes: byPrefix[p]})
	}
	return out
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
