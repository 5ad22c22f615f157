package intent

import (
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
)

// serviceHostRoutes returns the /32 and /128 host routes that rule r announces of the
// Service's addresses of its family and kinds, and the addresses it refuses because
// they lie outside the ranges the advertisement allows for their kind. lbls are the
// Service's kbgpv1.ServiceLabels; local says whether the Service has a ready endpoint on this
// node (externalTrafficPolicy and internalTrafficPolicy Local). A Service with more
// addresses than the rule's maxAddressesPerService is refused as a whole.
func serviceHostRoutes(svc *corev1.Service, lbls labels.Set, r *serviceRule, local bool) (routes []netip.Prefix, refused []refusal) {
	for _, kind := range r.entry.Service.Addresses {
		if nodeLocal(svc, kind) && !local {
			continue
		}
		for _, addr := range serviceAddresses(svc, kind) {
			if addr.Is6() != (r.family == bgp.FamilyIPv6Unicast) {
				continue
			}
			if !r.allows(kind, addr, lbls) {
				refused = append(refused, r.refusal(kind, addr, r.advertisement))
				continue
			}
			routes = append(routes, netip.PrefixFrom(addr, addr.BitLen()))
		}
	}
	if limit := r.maxAddresses(); len(routes) > limit {
		return nil, append(refused, refusal{tooMany: len(routes), limit: limit, advertisement: r.advertisement})
	}
	return routes, refused
}

// serviceAddresses are the Service's addresses of one kind that parse.
func serviceAddresses(svc *corev1.Service, kind kbgpv1.ServiceAddressType) []netip.Addr {
	var raw []string
	switch kind {
	case kbgpv1.ServiceLoadBalancerIP:
		if svc.Spec.Type != corev1.ServiceTypeLoadBalancer ||
			(svc.Spec.LoadBalancerClass != nil && *svc.Spec.LoadBalancerClass != kbgpv1.LoadBalancerClass) {
			return nil
		}
		for _, ing := range svc.Status.LoadBalancer.Ingress {
			raw = append(raw, ing.IP)
		}
	case kbgpv1.ServiceClusterIP:
		if svc.Spec.ClusterIP == corev1.ClusterIPNone {
			return nil
		}
		raw = svc.Spec.ClusterIPs
		if len(raw) == 0 && svc.Spec.ClusterIP != "" {
			raw = []string{svc.Spec.ClusterIP}
		}
	case kbgpv1.ServiceExternalIP:
		raw = svc.Spec.ExternalIPs
	}
	var out []netip.Addr
	for _, r := range raw {
		if a, err := netip.ParseAddr(r); err == nil {
			out = append(out, a.Unmap())
		}
	}
	return out
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

// hasLocalEndpoint reports whether one of the endpoints on node is ready. An endpoint
// without a ready condition counts as ready (the API's rule).
func hasLocalEndpoint(slices []discoveryv1.EndpointSlice, node string) bool {
	for _, slice := range slices {
		for _, ep := range slice.Endpoints {
			if ep.NodeName == nil || *ep.NodeName != node {
				continue
			}
			if ep.Conditions.Ready == nil || *ep.Conditions.Ready {
				return true
			}
		}
	}
	return false
}

// EndpointSliceService is the Service an EndpointSlice belongs to.
func EndpointSliceService(s *discoveryv1.EndpointSlice) (types.NamespacedName, bool) {
	name, ok := s.Labels[discoveryv1.LabelServiceName]
	return types.NamespacedName{Namespace: s.Namespace, Name: name}, ok && name != ""
}
