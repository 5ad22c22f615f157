package lbipam

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// Port is one port a Service exposes; two Services sharing an address must not expose
// the same one.
type Port struct {
	Protocol corev1.Protocol
	Port     int32
}

// Request is what one Service asks of the allocator.
type Request struct {
	// Service is "namespace/name".
	Service string
	// Labels are what pool selectors match (kbgpv1.ServiceLabels).
	Labels labels.Set
	// Required families must each get an address or the Service gets none; Optional
	// ones (the second family of PreferDualStack) get one when a pool has it.
	Required, Optional []corev1.IPFamily
	// Requested are the addresses asked for, at most one per family.
	Requested  []netip.Addr
	SharingKey string
	// Local is externalTrafficPolicy Local: the address is announced only from nodes
	// with an endpoint of the Service, chosen by PodSelector.
	Local       bool
	PodSelector string
	Ports       []Port
	// Current are the addresses in the Service's status now.
	Current []netip.Addr
}

// shareGroup is what Services sharing one address have in common (MetalLB's rule): a
// sharing key, a namespace, so that a key, which is free text, never reaches another
// tenant's address, and the external traffic policy, since a Local address is
// announced only from the nodes with an endpoint; for Local, the pod selector too.
type shareGroup struct {
	namespace, key string
	local          bool
	podSelector    string
}

func (r Request) group() shareGroup {
	ns, _, _ := strings.Cut(r.Service, "/")
	return shareGroup{namespace: ns, key: r.SharingKey, local: r.Local, podSelector: r.PodSelector}
}

// refuses says why a Service of group j may not share an address held under g, or ""
// when it may.
func (g shareGroup) refuses(j shareGroup) string {
	switch {
	case j.key == "" || j.key != g.key:
		return fmt.Sprintf("sharing needs the same %q annotation", kbgpv1.SharingKeyAnnotation)
	case j.namespace != g.namespace:
		return "addresses are shared only inside one namespace"
	case j.local != g.local:
		return "sharing needs the same externalTrafficPolicy"
	case j.podSelector != g.podSelector:
		return "Services of externalTrafficPolicy Local share an address only with the same pod selector"
	}
	return ""
}

// Eligible reports whether the allocator serves the Service: a LoadBalancer Service
// whose class is unset or kbgp's, not being deleted.
func Eligible(svc *corev1.Service) bool {
	return svc.DeletionTimestamp == nil && svc.Spec.Type == corev1.ServiceTypeLoadBalancer &&
		(svc.Spec.LoadBalancerClass == nil || *svc.Spec.LoadBalancerClass == kbgpv1.LoadBalancerClass)
}

// NewRequest reads what an eligible Service asks for. An unreadable address request is
// an error for the Service's event; the Service then gets nothing rather than an
// address it did not ask for.
func NewRequest(svc *corev1.Service) (Request, error) {
	req := Request{
		Service:    svc.Namespace + "/" + svc.Name,
		Labels:     kbgpv1.ServiceLabels(svc.ObjectMeta),
		SharingKey: svc.Annotations[kbgpv1.SharingKeyAnnotation],
		Local:      svc.Spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal,
		Current:    IngressAddresses(svc),
	}
	if req.Local {
		req.PodSelector = labels.Set(svc.Spec.Selector).String()
	}
	for _, p := range svc.Spec.Ports {
		req.Ports = append(req.Ports, Port{Protocol: cmpProtocol(p.Protocol), Port: p.Port})
	}
	requested, err := requestedAddresses(svc)
	if err != nil {
		return req, err
	}
	req.Requested = requested
	req.Required, req.Optional = families(svc, requested)
	return req, nil
}

// IngressAddresses are the addresses in the Service's status.loadBalancer.ingress.
func IngressAddresses(svc *corev1.Service) []netip.Addr {
	var out []netip.Addr
	for _, ing := range svc.Status.LoadBalancer.Ingress {
		if a, err := netip.ParseAddr(ing.IP); err == nil {
			out = append(out, a.Unmap())
		}
	}
	return out
}

// requestedAddresses reads the kbgp.io/load-balancer-ips annotation, else
// spec.loadBalancerIP.
func requestedAddresses(svc *corev1.Service) ([]netip.Addr, error) {
	if raw, ok := svc.Annotations[kbgpv1.LoadBalancerIPsAnnotation]; ok {
		addrs, err := ParseRequested(raw)
		if err != nil {
			return nil, fmt.Errorf("annotation %s: %w", kbgpv1.LoadBalancerIPsAnnotation, err)
		}
		return addrs, nil
	}
	if svc.Spec.LoadBalancerIP == "" {
		return nil, nil
	}
	a, err := netip.ParseAddr(svc.Spec.LoadBalancerIP)
	if err != nil {
		return nil, fmt.Errorf("spec.loadBalancerIP: %w", err)
	}
	return []netip.Addr{a.Unmap()}, nil
}

// ParseRequested parses a comma-separated list of at most one address per family.
func ParseRequested(raw string) ([]netip.Addr, error) {
	var out []netip.Addr
	for _, field := range strings.Split(raw, ",") {
		field = strings.TrimSpace(field)
		if field == "" {
			continue
		}
		a, err := netip.ParseAddr(field)
		if err != nil || a.Zone() != "" {
			return nil, fmt.Errorf("%q is not an IP address", field)
		}
		a = a.Unmap()
		if slices.ContainsFunc(out, func(b netip.Addr) bool { return b.Is4() == a.Is4() }) {
			return nil, fmt.Errorf("more than one %s address", familyOf(a))
		}
		out = append(out, a)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no address in %q", raw)
	}
	return out, nil
}

// families says which families the Service needs an address of, from spec.ipFamilies
// and spec.ipFamilyPolicy. The API server always fills ipFamilies; without it the
// requested addresses, else IPv4, decide.
func families(svc *corev1.Service, requested []netip.Addr) (required, optional []corev1.IPFamily) {
	fams := slices.Clone(svc.Spec.IPFamilies)
	if len(fams) == 0 {
		for _, a := range requested {
			fams = append(fams, familyOf(a))
		}
	}
	if len(fams) == 0 {
		fams = []corev1.IPFamily{corev1.IPv4Protocol}
	}
	policy := corev1.IPFamilyPolicySingleStack
	if svc.Spec.IPFamilyPolicy != nil {
		policy = *svc.Spec.IPFamilyPolicy
	}
	switch {
	case policy == corev1.IPFamilyPolicyRequireDualStack:
		return fams, nil
	case policy == corev1.IPFamilyPolicyPreferDualStack && len(fams) > 1:
		return fams[:1], fams[1:]
	default:
		return fams[:1], nil
	}
}

func cmpProtocol(p corev1.Protocol) corev1.Protocol {
	if p == "" {
		return corev1.ProtocolTCP
	}
	return p
}
