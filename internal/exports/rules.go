package exports

import (
	"net/netip"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/labels"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
)

// Rules decide what one Service gives one peer: intent builds them, without side
// effects, from the BGPAdvertisements the peer's families select; the Index keeps what
// they decided per Service and resolves what several Services give one prefix.
type Rules interface {
	// Routes are the host routes of svc the peer is sent, each prefix once with its
	// attributes, and the addresses the rules select but do not allow. lbls are
	// svc's kbgpv1.ServiceLabels; localEndpoints is how many ready endpoints svc has
	// on the node (for traffic policy Local, and the weights of weighted ECMP).
	Routes(svc *corev1.Service, lbls labels.Set, localEndpoints int) ([]Route, []Refusal)
}

// Route is what one source gives one peer for one prefix. Attributes is shared, by
// every prefix one rule selects, and never modified.
type Route struct {
	Prefix     netip.Prefix
	Attributes *bgp.PathAttributes
}

// entry is r as an entry of the index's prefixList.
func (r Route) entry() (netip.Prefix, *bgp.PathAttributes) {
	return r.Prefix, r.Attributes
}

// Refusal is a Service address some rule selects but does not announce, and why (a
// clause of the Service's refusal message). Addr is zero when the refusal is of the
// Service as a whole.
type Refusal struct {
	Addr   netip.Addr
	Reason string
}

// refusalMessage says which of a Service's addresses are not announced and why, in a
// stable order.
func refusalMessage(refused []Refusal) string {
	lines := make([]string, 0, len(refused))
	for _, r := range refused {
		lines = append(lines, r.Reason)
	}
	slices.Sort(lines)
	return strings.Join(slices.Compact(lines), "; ") + ": not announced"
}

// ServiceAddresses are the Service's addresses of one kind that parse.
func ServiceAddresses(svc *corev1.Service, kind kbgpv1.ServiceAddressType) []netip.Addr {
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

// LocalEndpoints counts the ready endpoints on node. An endpoint without a ready
// condition counts as ready (the API's rule). Endpoints are not de-duplicated across
// slices: the agent's cache keeps of an endpoint only its node and conditions, and an
// endpoint two slices list for a moment (while one replaces the other) weighs double
// only that long.
func LocalEndpoints(slices []discoveryv1.EndpointSlice, node string) int {
	n := 0
	for _, slice := range slices {
		for _, ep := range slice.Endpoints {
			if ep.NodeName != nil && *ep.NodeName == node && (ep.Conditions.Ready == nil || *ep.Conditions.Ready) {
				n++
			}
		}
	}
	return n
}
