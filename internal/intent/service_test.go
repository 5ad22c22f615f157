package intent

import (
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
)

func lbService(name string, lbls map[string]string, ips ...string) corev1.Service {
	svc := corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, Labels: lbls},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, ClusterIP: "10.96.0.10", ClusterIPs: []string{"10.96.0.10", "fd96::10"},
			ExternalIPs: []string{"198.51.100.77"}},
	}
	for _, ip := range ips {
		svc.Status.LoadBalancer.Ingress = append(svc.Status.LoadBalancer.Ingress, corev1.LoadBalancerIngress{IP: ip})
	}
	return svc
}

// testRanges allow every address the tests' Services use (the documentation ranges).
var testRanges = []kbgpv1.CIDR{"198.51.100.0/24", "203.0.113.0/24", "2001:db8::/32"}

// serviceAd is an advertisement whose ranges allow every test address.
func serviceAd(name string, sel *kbgpv1.LabelSelector, comm kbgpv1.StandardCommunity, kinds ...kbgpv1.ServiceAddressType) kbgpv1.BGPAdvertisement {
	return serviceAdWithin(name, sel, comm, testRanges, testRanges, kinds...)
}

// serviceAdWithin is an advertisement allowing external IPs in ext and load-balancer
// IPs in lb.
func serviceAdWithin(name string, sel *kbgpv1.LabelSelector, comm kbgpv1.StandardCommunity, ext, lb []kbgpv1.CIDR, kinds ...kbgpv1.ServiceAddressType) kbgpv1.BGPAdvertisement {
	return kbgpv1.BGPAdvertisement{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"advertise": "bgp"}},
		Spec: kbgpv1.BGPAdvertisementSpec{Advertisements: []kbgpv1.Advertisement{{
			AdvertisementType: kbgpv1.AdvertisementService, Selector: sel,
			Service:    &kbgpv1.ServiceAdvertisement{Addresses: kinds, ExternalIPPrefixes: ext, LoadBalancerIPPrefixes: lb},
			Attributes: &kbgpv1.BGPAttributes{Communities: &kbgpv1.BGPCommunities{Standard: []kbgpv1.StandardCommunity{comm}}},
		}}},
	}
}

func slice(svc, node string, ready *bool) discoveryv1.EndpointSlice {
	return discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: svc + "-x", Labels: map[string]string{discoveryv1.LabelServiceName: svc}},
		Endpoints:  []discoveryv1.Endpoint{{NodeName: ptr.To(node), Conditions: discoveryv1.EndpointConditions{Ready: ready}}},
	}
}

func host(s string) netip.Prefix { a := netip.MustParseAddr(s); return netip.PrefixFrom(a, a.BitLen()) }

func TestServicePaths(t *testing.T) {
	sel := &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"advertise": "bgp"}}
	both := []familyAdvertisements{{bgp.FamilyIPv4Unicast, sel}, {bgp.FamilyIPv6Unicast, sel}}
	c1 := bgp.PathAttributes{Communities: []uint32{65001<<16 | 1}}
	c12 := bgp.PathAttributes{Communities: []uint32{65001<<16 | 1, 65001<<16 | 2}}
	web := lbService("web", map[string]string{"tier": "front"}, "203.0.113.10", "2001:db8:10::10")
	otherClass := lbService("other-class", nil, "203.0.113.11")
	otherClass.Spec.LoadBalancerClass = ptr.To("example.com/other")
	ourClass := lbService("our-class", nil, "203.0.113.12")
	ourClass.Spec.LoadBalancerClass = ptr.To(kbgpv1.LoadBalancerClass)
	internal := lbService("internal", nil, "203.0.113.14")
	internal.Spec.InternalTrafficPolicy = ptr.To(corev1.ServiceInternalTrafficPolicyLocal)
	internalKey := types.NamespacedName{Namespace: "shop", Name: "internal"}
	// forged lives in namespace evil but labels itself as shop's our-class, and claims
	// another label under kbgp.io/.
	forged := lbService("forged", map[string]string{kbgpv1.LabelServiceName: "our-class", kbgpv1.LabelServiceNamespace: "shop", "kbgp.io/team": "payments"}, "203.0.113.66")
	forged.Namespace = "evil"
	byShopName := &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{kbgpv1.LabelServiceName: "our-class", kbgpv1.LabelServiceNamespace: "shop"}}
	byShopNamespace := &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{kbgpv1.LabelServiceNamespace: "shop"}}
	byTeam := &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"kbgp.io/team": "payments"}}

	tests := []struct {
		name   string
		ads    []kbgpv1.BGPAdvertisement
		svcs   []corev1.Service
		slices map[types.NamespacedName][]discoveryv1.EndpointSlice
		fams   []familyAdvertisements
		want   []bgp.Path
	}{
		{"load-balancer IPs, dual-stack, as host routes",
			[]kbgpv1.BGPAdvertisement{serviceAd("lb", nil, "65001:1", kbgpv1.ServiceLoadBalancerIP)}, []corev1.Service{web}, nil, both,
			[]bgp.Path{{Prefix: host("203.0.113.10"), Attributes: c1}, {Prefix: host("2001:db8:10::10"), Attributes: c1}}},
		{"IPv4 family only",
			[]kbgpv1.BGPAdvertisement{serviceAd("lb", nil, "65001:1", kbgpv1.ServiceLoadBalancerIP)}, []corev1.Service{web}, nil, both[:1],
			[]bgp.Path{{Prefix: host("203.0.113.10"), Attributes: c1}}},
		{"cluster and external IPs",
			[]kbgpv1.BGPAdvertisement{serviceAd("ips", nil, "65001:1", kbgpv1.ServiceClusterIP, kbgpv1.ServiceExternalIP)}, []corev1.Service{web}, nil, both[:1],
			[]bgp.Path{{Prefix: host("10.96.0.10"), Attributes: c1}, {Prefix: host("198.51.100.77"), Attributes: c1}}},
		{"selector on labels and pseudo-labels",
			[]kbgpv1.BGPAdvertisement{
				serviceAd("by-label", &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"tier": "front"}}, "65001:1", kbgpv1.ServiceLoadBalancerIP),
				serviceAd("by-name", &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{kbgpv1.LabelServiceName: "our-class", kbgpv1.LabelServiceNamespace: "shop"}}, "65001:2", kbgpv1.ServiceLoadBalancerIP),
			}, []corev1.Service{web, ourClass}, nil, both[:1],
			[]bgp.Path{{Prefix: host("203.0.113.10"), Attributes: c1}, {Prefix: host("203.0.113.12"), Attributes: bgp.PathAttributes{Communities: []uint32{65001<<16 | 2}}}}},
		{"pseudo-labels a Service sets on itself do not count",
			[]kbgpv1.BGPAdvertisement{serviceAd("by-name", byShopName, "65001:1", kbgpv1.ServiceLoadBalancerIP), serviceAd("by-ns", byShopNamespace, "65001:1", kbgpv1.ServiceLoadBalancerIP)},
			[]corev1.Service{forged}, nil, both[:1], nil},
		{"control: the real shop Service matches the same selectors",
			[]kbgpv1.BGPAdvertisement{serviceAd("by-name", byShopName, "65001:1", kbgpv1.ServiceLoadBalancerIP), serviceAd("by-ns", byShopNamespace, "65001:1", kbgpv1.ServiceLoadBalancerIP)},
			[]corev1.Service{ourClass}, nil, both[:1],
			[]bgp.Path{{Prefix: host("203.0.113.12"), Attributes: c1}}},
		{"Service labels under kbgp.io/ do not count",
			[]kbgpv1.BGPAdvertisement{serviceAd("by-team", byTeam, "65001:1", kbgpv1.ServiceLoadBalancerIP)},
			[]corev1.Service{forged}, nil, both[:1], nil},
		{"external and load-balancer IPs outside the allowed ranges: refused",
			[]kbgpv1.BGPAdvertisement{serviceAdWithin("narrow", nil, "65001:1", []kbgpv1.CIDR{"198.51.100.128/25"}, []kbgpv1.CIDR{"203.0.113.128/25", "2001:db8:10::/48"},
				kbgpv1.ServiceLoadBalancerIP, kbgpv1.ServiceExternalIP, kbgpv1.ServiceClusterIP)},
			[]corev1.Service{web}, nil, both,
			[]bgp.Path{{Prefix: host("10.96.0.10"), Attributes: c1}, {Prefix: host("2001:db8:10::10"), Attributes: c1}, {Prefix: host("fd96::10"), Attributes: c1}}},
		{"no ranges: no external or load-balancer IP, cluster IPs still",
			[]kbgpv1.BGPAdvertisement{serviceAdWithin("none", nil, "65001:1", nil, nil, kbgpv1.ServiceLoadBalancerIP, kbgpv1.ServiceExternalIP, kbgpv1.ServiceClusterIP)},
			[]corev1.Service{web}, nil, both[:1],
			[]bgp.Path{{Prefix: host("10.96.0.10"), Attributes: c1}}},
		{"overlapping advertisements: once, union of communities",
			[]kbgpv1.BGPAdvertisement{serviceAd("a", nil, "65001:1", kbgpv1.ServiceLoadBalancerIP), serviceAd("b", nil, "65001:2", kbgpv1.ServiceLoadBalancerIP)},
			[]corev1.Service{web}, nil, both[:1],
			[]bgp.Path{{Prefix: host("203.0.113.10"), Attributes: c12}}},
		{"another load-balancer class is not ours",
			[]kbgpv1.BGPAdvertisement{serviceAd("lb", nil, "65001:1", kbgpv1.ServiceLoadBalancerIP)}, []corev1.Service{otherClass, ourClass}, nil, both[:1],
			[]bgp.Path{{Prefix: host("203.0.113.12"), Attributes: c1}}},
		{"iTP=Local without a ready endpoint here: the cluster IP is not announced, the LB IP is",
			[]kbgpv1.BGPAdvertisement{serviceAd("all", nil, "65001:1", kbgpv1.ServiceClusterIP, kbgpv1.ServiceLoadBalancerIP)}, []corev1.Service{internal},
			map[types.NamespacedName][]discoveryv1.EndpointSlice{internalKey: {slice("internal", "worker-1", ptr.To(false)), slice("internal", "worker-2", ptr.To(true))}}, both[:1],
			[]bgp.Path{{Prefix: host("203.0.113.14"), Attributes: c1}}},
		{"iTP=Local with a ready endpoint here: the cluster IP is announced",
			[]kbgpv1.BGPAdvertisement{serviceAd("cip", nil, "65001:1", kbgpv1.ServiceClusterIP)}, []corev1.Service{internal},
			map[types.NamespacedName][]discoveryv1.EndpointSlice{internalKey: {slice("internal", "worker-1", ptr.To(true))}}, both[:1],
			[]bgp.Path{{Prefix: host("10.96.0.10"), Attributes: c1}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := Input{Advertisements: tc.ads, Services: tc.svcs, EndpointSlices: tc.slices, Node: node()}
			if diff := cmp.Diff(tc.want, advertisedPaths(in, tc.fams, false), cmpOpts...); diff != "" {
				t.Errorf("paths (-want +got):\n%s", diff)
			}
		})
	}
}
