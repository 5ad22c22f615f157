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

// advertisedPaths returns the prefixes the peer's families select — the node's pod
// CIDRs and the addresses of selected Services — each once, with the union of the
// communities and the highest local preference of every advertisement that selects
// it. Local preference is kept for iBGP peers only.
func advertisedPaths(in Input, fams []familyAdvertisements, ibgp bool) []bgp.Path {
	if in.Node == nil {
		return nil
	}
	byPrefix := map[netip.Prefix]bgp.PathAttributes{}
	var order []netip.Prefix
	add := func(p netip.Prefix, attrs bgp.PathAttributes) {
		if _, seen := byPrefix[p]; !seen {
			order = append(order, p)
		}
		byPrefix[p] = mergeAttributes(byPrefix[p], attrs)
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
				attrs := attributes(a.Attributes, ibgp)
				var prefixes []netip.Prefix
				switch a.AdvertisementType {
				case kbgpv1.AdvertisementPodCIDR:
					prefixes = podCIDRs(in.Node, fa.family)
				case kbgpv1.AdvertisementService:
					prefixes = serviceHostRoutes(in, a, fa.family)
				}
				for _, p := range prefixes {
					add(p, attrs)
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
