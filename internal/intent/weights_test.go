package intent

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
)

// TestLinkBandwidth: one unit per ready local endpoint for a Local address, one unit
// for a Cluster address whatever the count, and no overflow of 32 bits.
func TestLinkBandwidth(t *testing.T) {
	tests := []struct {
		name      string
		nodeLocal bool
		endpoints int
		want      uint32
	}{
		{"Local, 1 endpoint", true, 1, 125000},
		{"Local, 2 endpoints", true, 2, 250000},
		{"Local, 3 endpoints", true, 3, 375000},
		{"Local, 0 endpoints (not announced anyway)", true, 0, 0},
		{"Local, a negative count is none", true, -1, 0},
		{"Local, the cap", true, maxWeightedEndpoints, maxWeightedEndpoints * BandwidthPerEndpoint},
		{"Local, above the cap stays at the cap", true, maxWeightedEndpoints + 1000, maxWeightedEndpoints * BandwidthPerEndpoint},
		{"Cluster, 5 endpoints: one unit", false, 5, 125000},
		{"Cluster, no endpoint here: one unit", false, 0, 125000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := linkBandwidth(65001, tc.nodeLocal, tc.endpoints)
			if want := (bgp.LinkBandwidth{ASN: 65001, BytesPerSecond: tc.want}); got != want {
				t.Errorf("linkBandwidth(%v, %d) = %+v, want %+v", tc.nodeLocal, tc.endpoints, got, want)
			}
		})
	}
	if uint64(maxWeightedEndpoints)*BandwidthPerEndpoint > 1<<32-1 || uint64(maxWeightedEndpoints+1)*BandwidthPerEndpoint <= 1<<32-1 {
		t.Errorf("maxWeightedEndpoints %d is not the largest count whose bandwidth fits 32 bits", maxWeightedEndpoints)
	}
}

// TestWeightedServicePaths runs Services through advertisements with and without
// weightedECMP: the Local load-balancer IP carries one unit per ready endpoint on the
// node (endpoints elsewhere or not ready do not count), the Cluster one
// a unit, an advertisement without weightedECMP none, and a prefix both select the
// bandwidth (merge).
func TestWeightedServicePaths(t *testing.T) {
	sel := &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"advertise": "bgp"}}
	v4 := []familyAdvertisements{{bgp.FamilyIPv4Unicast, sel}}
	weighted := func(a kbgpv1.BGPAdvertisement) kbgpv1.BGPAdvertisement {
		a.Spec.Advertisements[0].Attributes.WeightedECMP = true
		return a
	}
	c1 := []uint32{65001<<16 | 1}
	lb := func(units uint32) bgp.LinkBandwidth {
		return bgp.LinkBandwidth{ASN: testLocalASN, BytesPerSecond: units * BandwidthPerEndpoint}
	}
	local := lbService("local", nil, "203.0.113.10")
	local.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
	cluster := lbService("cluster", nil, "203.0.113.11")
	key := types.NamespacedName{Namespace: "shop", Name: "local"}
	// ep is an endpoint as the agent's cache keeps it: node and conditions only.
	ep := func(node string, ready *bool) discoveryv1.Endpoint {
		return discoveryv1.Endpoint{NodeName: ptr.To(node), Conditions: discoveryv1.EndpointConditions{Ready: ready}}
	}
	slices := func(eps ...discoveryv1.Endpoint) []discoveryv1.EndpointSlice {
		// Two slices, as a Service with many endpoints has.
		a, b := slice("local", "worker-1", nil), slice("local", "worker-1", nil)
		a.Endpoints, b.Endpoints = eps[:len(eps)/2], eps[len(eps)/2:]
		return []discoveryv1.EndpointSlice{a, b}
	}
	three := slices(ep("worker-1", nil), ep("worker-1", ptr.To(true)), ep("worker-1", ptr.To(true)),
		ep("worker-1", ptr.To(false)), ep("worker-2", ptr.To(true)))

	tests := []struct {
		name string
		ads  []kbgpv1.BGPAdvertisement
		eps  []discoveryv1.EndpointSlice
		want []bgp.Path
	}{
		{"weighted: Local 3 endpoints here, Cluster one unit",
			[]kbgpv1.BGPAdvertisement{weighted(serviceAd("w", nil, "65001:1", kbgpv1.ServiceLoadBalancerIP))}, three,
			[]bgp.Path{
				{Prefix: host("203.0.113.10"), Attributes: bgp.PathAttributes{Communities: c1, LinkBandwidth: lb(3)}},
				{Prefix: host("203.0.113.11"), Attributes: bgp.PathAttributes{Communities: c1, LinkBandwidth: lb(1)}},
			}},
		{"weighted: one endpoint here",
			[]kbgpv1.BGPAdvertisement{weighted(serviceAd("w", nil, "65001:1", kbgpv1.ServiceLoadBalancerIP))},
			slices(ep("worker-1", nil), ep("worker-2", nil)),
			[]bgp.Path{
				{Prefix: host("203.0.113.10"), Attributes: bgp.PathAttributes{Communities: c1, LinkBandwidth: lb(1)}},
				{Prefix: host("203.0.113.11"), Attributes: bgp.PathAttributes{Communities: c1, LinkBandwidth: lb(1)}},
			}},
		{"weighted: no ready endpoint here, the Local address is not announced",
			[]kbgpv1.BGPAdvertisement{weighted(serviceAd("w", nil, "65001:1", kbgpv1.ServiceLoadBalancerIP))},
			slices(ep("worker-1", ptr.To(false)), ep("worker-2", nil)),
			[]bgp.Path{{Prefix: host("203.0.113.11"), Attributes: bgp.PathAttributes{Communities: c1, LinkBandwidth: lb(1)}}}},
		{"not weighted: no link bandwidth",
			[]kbgpv1.BGPAdvertisement{serviceAd("p", nil, "65001:1", kbgpv1.ServiceLoadBalancerIP)}, three,
			[]bgp.Path{
				{Prefix: host("203.0.113.10"), Attributes: bgp.PathAttributes{Communities: c1}},
				{Prefix: host("203.0.113.11"), Attributes: bgp.PathAttributes{Communities: c1}},
			}},
		{"merge: a weighted and a plain advertisement",
			[]kbgpv1.BGPAdvertisement{serviceAd("p", nil, "65001:2", kbgpv1.ServiceLoadBalancerIP), weighted(serviceAd("w", nil, "65001:1", kbgpv1.ServiceLoadBalancerIP))}, three,
			[]bgp.Path{
				{Prefix: host("203.0.113.10"), Attributes: bgp.PathAttributes{Communities: []uint32{65001<<16 | 1, 65001<<16 | 2}, LinkBandwidth: lb(3)}},
				{Prefix: host("203.0.113.11"), Attributes: bgp.PathAttributes{Communities: []uint32{65001<<16 | 1, 65001<<16 | 2}, LinkBandwidth: lb(1)}},
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := Input{Advertisements: tc.ads, Node: node(), Services: []corev1.Service{local, cluster},
				EndpointSlices: map[types.NamespacedName][]discoveryv1.EndpointSlice{key: tc.eps}}
			if diff := cmp.Diff(tc.want, advertisedPaths(in, v4, false), cmpOpts...); diff != "" {
				t.Errorf("paths (-want +got):\n%s", diff)
			}
		})
	}
}
