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

// The pseudo-labels an advertisement's Service selector can match besides the
// Service's own labels.
const (
	LabelServiceName      = "kbgp.io/service-name"
	LabelServiceNamespace = "kbgp.io/service-namespace"
)

// LoadBalancerClass is the loadBalancerClass kbgp announces besides an unset one.
const LoadBalancerClass = "kbgp.io/bgp"

// serviceHostRoutes returns the /32 and /128 host routes of the family for every
// Service the advertisement selects, of the address kinds it names.
func serviceHostRoutes(in Input, a kbgpv1.Advertisement, fam bgp.Family) []netip.Prefix {
	if a.Service == nil {
		return nil
	}
	sel := labels.Everything()
	if a.Selector != nil {
		s, ok := selector(a.Selector)
		if !ok {
			return nil
		}
		sel = s
	}
	var out []netip.Prefix
	for i := range in.Services {
		svc := &in.Services[i]
		if !sel.Matches(serviceLabels(svc)) {
			continue
		}
		for _, kind := range a.Service.Addresses {
			for _, addr := range serviceAddresses(svc, kind) {
				if addr.Is6() != (fam == bgp.FamilyIPv6Unicast) {
					continue
				}
				if externalLocal(svc, kind) && !hasLocalEndpoint(in, svc) {
					continue
				}
				out = append(out, netip.PrefixFrom(addr, addr.BitLen()))
			}
		}
	}
	return out
}

// serviceLabels are the Service's labels plus the two pseudo-labels.
func serviceLabels(svc *corev1.Service) labels.Set {
	set := labels.Set{LabelServiceName: svc.Name, LabelServiceNamespace: svc.Namespace}
	for k, v := range svc.Labels {
		set[k] = v
	}
	return set
}

// serviceAddresses are the Service's addresses of one kind that parse.
func serviceAddresses(svc *corev1.Service, kind kbgpv1.ServiceAddressType) []netip.Addr {
	var raw []string
	switch kind {
	case kbgpv1.ServiceLoadBalancerIP:
		if svc.Spec.Type != corev1.ServiceTypeLoadBalancer ||
			(svc.Spec.LoadBalancerClass != nil && *svc.Spec.LoadBalancerClass != LoadBalancerClass) {
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

// externalLocal reports whether the address kind carries external traffic that
// externalTrafficPolicy Local keeps on nodes with an endpoint (load-balancer and
// external IPs; the cluster IP is internal traffic).
func externalLocal(svc *corev1.Service, kind kbgpv1.ServiceAddressType) bool {
	return kind != kbgpv1.ServiceClusterIP && svc.Spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal
}

// hasLocalEndpoint reports whether one of the Service's endpoints on this node is
// ready. An endpoint without a ready condition counts as ready (the API's rule).
func hasLocalEndpoint(in Input, svc *corev1.Service) bool {
	for _, slice := range in.EndpointSlices[types.NamespacedName{Namespace: svc.Namespace, Name: svc.Name}] {
		for _, ep := range slice.Endpoints {
			if ep.NodeName == nil || *ep.NodeName != in.Node.Name {
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
