package intent

import (
	"net/netip"
	"slices"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/exports"
)

// serviceRule is one Service entry of a BGPAdvertisement that one family of a peer
// selects, with its Service selector compiled and its attributes converted for that
// peer (local preference only for iBGP).
type serviceRule struct {
	family   bgp.Family
	selector labels.Selector
	entry    kbgpv1.Advertisement
	attrs    bgp.PathAttributes
	// advertisement names the BGPAdvertisement the entry is in, for refusals.
	advertisement string
	allowedRanges
	// aggregates is shared by the copies of the rule (see aggregate.go).
	aggregates *aggregates
	// weighted holds, when the entry asks for weighted ECMP, the rule's attributes
	// with each link bandwidth given so far (see weightedAttributes); nil otherwise.
	// bandwidthASN is the AS the link bandwidth is announced from.
	weighted     map[uint32]*bgp.PathAttributes
	bandwidthASN uint32
}

// serviceRules are the Service rules of one peer: what decides, for the exports.Index,
// what each Service gives the peer.
type serviceRules []serviceRule

// Routes implements exports.Rules. A prefix one rule selects points at that rule's
// attributes (with weighted ECMP, at the rule's attributes with that link bandwidth);
// only a prefix several rules select gets an attribute set of its own, their merge.
func (rs serviceRules) Routes(svc *corev1.Service, lbls labels.Set, localEndpoints int) ([]exports.Route, []exports.Refusal) {
	var routes []exports.Route
	var refused []exports.Refusal
	// seen indexes the routes by prefix once a second rule gives some: the routes of
	// one rule are each of its prefixes once already.
	var seen map[netip.Prefix]int
	for i := range rs {
		r := &rs[i]
		if !r.selector.Matches(lbls) {
			continue
		}
		hosts, no := serviceHostRoutes(svc, lbls, r, localEndpoints > 0)
		refused = append(refused, no...)
		switch {
		case len(hosts) == 0:
			continue
		case routes == nil:
			routes = make([]exports.Route, 0, len(hosts))
		case seen == nil:
			seen = make(map[netip.Prefix]int, len(routes)+len(hosts))
			for j, route := range routes {
				seen[route.Prefix] = j
			}
		}
		for _, h := range hosts {
			attrs := &r.attrs
			if r.weighted != nil {
				attrs = r.weightedAttributes(linkBandwidth(r.bandwidthASN, h.nodeLocal, localEndpoints))
			}
			if j, dup := seen[h.prefix]; dup {
				merged := routes[j].Attributes.Merge(*attrs)
				routes[j].Attributes = &merged
				continue
			}
			if seen != nil {
				seen[h.prefix] = len(routes)
			}
			routes = append(routes, exports.Route{Prefix: h.prefix, Attributes: attrs})
		}
	}
	return routes, refused
}

// serviceHostRoutes returns the /32 and /128 host routes, or their aggregates (see
// aggregate.go), that rule r announces of the Service's addresses of its family and
// kinds, each once, and the addresses it refuses because they lie outside the ranges
// the advertisement allows for their kind. lbls are the Service's
// kbgpv1.ServiceLabels; local says whether the Service has a ready endpoint on this
// node (externalTrafficPolicy and internalTrafficPolicy Local). A Service with more
// addresses than the rule's maxAddressesPerService is refused as a whole: the cap
// counts addresses, aggregated or not.
//
// The API server does not cap a Service's addresses, so the cost here is linear in
// them: past the cap they are only counted, and below it a set finds the repeated
// prefixes once there are more than a few (a raised cap allows thousands).
func serviceHostRoutes(svc *corev1.Service, lbls labels.Set, r *serviceRule, local bool) (routes []hostRoute, refused []exports.Refusal) {
	addresses, limit := 0, r.maxAddresses()
	var once hostRouteSet
	for _, kind := range r.entry.Service.Addresses {
		kindLocal := nodeLocal(svc, kind)
		if kindLocal && !local {
			continue
		}
		for _, addr := range exports.ServiceAddresses(svc, kind) {
			if addr.Is6() != (r.family == bgp.FamilyIPv6Unicast) {
				continue
			}
			if !r.allows(kind, addr, lbls) {
				refused = append(refused, r.refusal(kind, addr, r.advertisement))
				continue
			}
			if addresses++; addresses > limit {
				continue
			}
			once.add(hostRoute{prefix: r.announcedPrefix(svc, lbls, kind, addr), nodeLocal: kindLocal})
		}
	}
	if addresses > limit {
		return nil, append(refused, tooMany(addresses, limit, r.advertisement))
	}
	return once.routes, refused
}

// hostRouteSet collects host routes, each prefix once (the first route of a prefix
// stays): by a scan while they are few, by a set of their prefixes beyond.
type hostRouteSet struct {
	routes []hostRoute
	seen   map[netip.Prefix]struct{}
}

// scanUpTo is how many routes a hostRouteSet scans before it indexes them.
const scanUpTo = 16

func (h *hostRouteSet) add(r hostRoute) {
	if h.seen == nil && len(h.routes) < scanUpTo {
		if !slices.ContainsFunc(h.routes, func(x hostRoute) bool { return x.prefix == r.prefix }) {
			h.routes = append(h.routes, r)
		}
		return
	}
	if h.seen == nil {
		h.seen = make(map[netip.Prefix]struct{}, 2*len(h.routes))
		for _, x := range h.routes {
			h.seen[x.prefix] = struct{}{}
		}
	}
	if _, dup := h.seen[r.prefix]; !dup {
		h.seen[r.prefix] = struct{}{}
		h.routes = append(h.routes, r)
	}
}

// hostRoute is a host route of a Service address (or the aggregate announced in its
// place, only ever of Cluster addresses), and whether the address's traffic policy is
// Local (see nodeLocal).
type hostRoute struct {
	prefix    netip.Prefix
	nodeLocal bool
}

// nodeLocal reports whether the Service keeps the traffic of the address kind on nodes
// with a ready endpoint: externalTrafficPolicy Local for the external kinds
// (load-balancer and external IPs), internalTrafficPolicy Local for the cluster IP.
func nodeLocal(svc *corev1.Service, kind kbgpv1.ServiceAddressType) bool {
	if kind == kbgpv1.ServiceClusterIP {
		return svc.Spec.InternalTrafficPolicy != nil && *svc.Spec.InternalTrafficPolicy == corev1.ServiceInternalTrafficPolicyLocal
	}
	return svc.Spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal
}

// EndpointSliceService is the Service an EndpointSlice belongs to.
func EndpointSliceService(s *discoveryv1.EndpointSlice) (types.NamespacedName, bool) {
	name, ok := s.Labels[discoveryv1.LabelServiceName]
	return types.NamespacedName{Namespace: s.Namespace, Name: name}, ok && name != ""
}
