package intent

import (
	"maps"
	"net/netip"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/exports"
)

// TestAggregation is the table of the aggregation rules (aggregate.go,
// docs/advertisements.md): which addresses are announced as their aggregate and
// which keep their host route.
func TestAggregation(t *testing.T) {
	sel := &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"advertise": "bgp"}}
	both := []familyAdvertisements{{bgp.FamilyIPv4Unicast, sel}, {bgp.FamilyIPv6Unicast, sel}}
	c1 := bgp.PathAttributes{Communities: []uint32{65001<<16 | 1}}
	c12 := bgp.PathAttributes{Communities: []uint32{65001<<16 | 1, 65001<<16 | 2}}
	pfx := netip.MustParsePrefix

	// ad aggregates to v4 and v6 (0: unset) the kinds, with ranges ext and lb.
	ad := func(name string, comm kbgpv1.StandardCommunity, v4, v6 int32, ext, lb []kbgpv1.CIDR, kinds ...kbgpv1.ServiceAddressType) kbgpv1.BGPAdvertisement {
		a := serviceAdWithin(name, nil, comm, ext, lb, kinds...)
		if v4 > 0 {
			a.Spec.Advertisements[0].Service.AggregationLengthIPv4 = ptr.To(v4)
		}
		if v6 > 0 {
			a.Spec.Advertisements[0].Service.AggregationLengthIPv6 = ptr.To(v6)
		}
		return a
	}
	lb := []kbgpv1.CIDR{"203.0.113.0/24", "2001:db8:10::/48"}
	ext := []kbgpv1.CIDR{"198.51.100.0/24"}
	svc := func(name string, local bool, ips ...string) corev1.Service {
		s := lbService(name, nil, ips...)
		s.Spec.ExternalIPs = nil
		if local {
			s.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
		}
		return s
	}
	withExternal := func(s corev1.Service, ips ...string) corev1.Service {
		s.Spec.ExternalIPs = ips
		return s
	}
	a := svc("a", false, "203.0.113.10", "2001:db8:10::10")
	b := svc("b", false, "203.0.113.20")
	far := svc("far", false, "203.0.113.200")
	local := svc("local", true, "203.0.113.30")
	localKey := types.NamespacedName{Namespace: "shop", Name: "local"}
	readyHere := map[types.NamespacedName][]discoveryv1.EndpointSlice{localKey: {slice("local", "worker-1", ptr.To(true))}}
	pool := kbgpv1.LoadBalancerIPPool{ObjectMeta: metav1.ObjectMeta{Name: "pool"},
		Spec: kbgpv1.LoadBalancerIPPoolSpec{Blocks: []kbgpv1.IPBlock{{CIDR: "203.0.113.0/25"}}}}
	otherNode := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "worker-2"},
		Spec:   corev1.NodeSpec{PodCIDRs: []string{"203.0.113.128/26"}},
		Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "2001:db8:10:0:ff::2"}}}}

	tests := []struct {
		name   string
		ads    []kbgpv1.BGPAdvertisement
		svcs   []corev1.Service
		slices map[types.NamespacedName][]discoveryv1.EndpointSlice
		pools  []kbgpv1.LoadBalancerIPPool
		others []*corev1.Node
		want   []bgp.Path
	}{
		{"unset: host routes",
			[]kbgpv1.BGPAdvertisement{ad("lb", "65001:1", 0, 0, nil, lb, kbgpv1.ServiceLoadBalancerIP)}, []corev1.Service{a, b}, nil, nil, nil,
			[]bgp.Path{{Prefix: host("203.0.113.10"), Attributes: c1}, {Prefix: host("203.0.113.20"), Attributes: c1}, {Prefix: host("2001:db8:10::10"), Attributes: c1}}},
		{"two eTP=Cluster Services in one /24: one aggregate; IPv6 without a length stays /128",
			[]kbgpv1.BGPAdvertisement{ad("lb", "65001:1", 24, 0, nil, lb, kbgpv1.ServiceLoadBalancerIP)}, []corev1.Service{a, b}, nil, nil, nil,
			[]bgp.Path{{Prefix: pfx("203.0.113.0/24"), Attributes: c1}, {Prefix: host("2001:db8:10::10"), Attributes: c1}}},
		{"both families aggregated",
			[]kbgpv1.BGPAdvertisement{ad("lb", "65001:1", 24, 48, nil, lb, kbgpv1.ServiceLoadBalancerIP)}, []corev1.Service{a}, nil, nil, nil,
			[]bgp.Path{{Prefix: pfx("203.0.113.0/24"), Attributes: c1}, {Prefix: pfx("2001:db8:10::/48"), Attributes: c1}}},
		{"length 32: no aggregation",
			[]kbgpv1.BGPAdvertisement{ad("lb", "65001:1", 32, 0, nil, lb, kbgpv1.ServiceLoadBalancerIP)}, []corev1.Service{b}, nil, nil, nil,
			[]bgp.Path{{Prefix: host("203.0.113.20"), Attributes: c1}}},
		{"eTP=Local with a ready endpoint here stays /32 beside the aggregate",
			[]kbgpv1.BGPAdvertisement{ad("lb", "65001:1", 24, 0, nil, lb, kbgpv1.ServiceLoadBalancerIP)}, []corev1.Service{b, local}, readyHere, nil, nil,
			[]bgp.Path{{Prefix: pfx("203.0.113.0/24"), Attributes: c1}, {Prefix: host("203.0.113.30"), Attributes: c1}}},
		{"eTP=Local alone: no aggregate, no route without an endpoint here",
			[]kbgpv1.BGPAdvertisement{ad("lb", "65001:1", 24, 0, nil, lb, kbgpv1.ServiceLoadBalancerIP)}, []corev1.Service{local}, nil, nil, nil,
			nil},
		{"cluster IPs are never aggregated",
			[]kbgpv1.BGPAdvertisement{ad("ips", "65001:1", 8, 0, nil, lb, kbgpv1.ServiceClusterIP, kbgpv1.ServiceLoadBalancerIP)}, []corev1.Service{b}, nil, nil, nil,
			[]bgp.Path{{Prefix: host("10.96.0.10"), Attributes: c1}, {Prefix: host("203.0.113.20"), Attributes: c1}, {Prefix: host("fd96::10"), Attributes: c1}}},
		{"external IPs aggregate within externalIPPrefixes",
			[]kbgpv1.BGPAdvertisement{ad("ext", "65001:1", 25, 0, ext, nil, kbgpv1.ServiceExternalIP)}, []corev1.Service{withExternal(b, "198.51.100.5", "198.51.100.6", "198.51.100.200")}, nil, nil, nil,
			[]bgp.Path{{Prefix: pfx("198.51.100.0/25"), Attributes: c1}, {Prefix: pfx("198.51.100.128/25"), Attributes: c1}}},
		{"an aggregate reaching outside the allowed range: host route",
			[]kbgpv1.BGPAdvertisement{ad("lb", "65001:1", 23, 0, nil, lb, kbgpv1.ServiceLoadBalancerIP)}, []corev1.Service{b}, nil, nil, nil,
			[]bgp.Path{{Prefix: host("203.0.113.20"), Attributes: c1}}},
		{"a pool block allows the aggregate inside it, not one reaching past it",
			[]kbgpv1.BGPAdvertisement{ad("pool", "65001:1", 25, 0, nil, nil, kbgpv1.ServiceLoadBalancerIP)}, []corev1.Service{b},
			nil, []kbgpv1.LoadBalancerIPPool{pool}, nil,
			[]bgp.Path{{Prefix: pfx("203.0.113.0/25"), Attributes: c1}}},
		{"control: the same pool and a /24 aggregate: host route",
			[]kbgpv1.BGPAdvertisement{ad("pool", "65001:1", 24, 0, nil, nil, kbgpv1.ServiceLoadBalancerIP)}, []corev1.Service{b},
			nil, []kbgpv1.LoadBalancerIPPool{pool}, nil,
			[]bgp.Path{{Prefix: host("203.0.113.20"), Attributes: c1}}},
		{"an aggregate covering another node's pod CIDR or address: host routes",
			[]kbgpv1.BGPAdvertisement{ad("lb", "65001:1", 24, 48, nil, lb, kbgpv1.ServiceLoadBalancerIP)}, []corev1.Service{a, b}, nil, nil, []*corev1.Node{otherNode},
			[]bgp.Path{{Prefix: host("203.0.113.10"), Attributes: c1}, {Prefix: host("203.0.113.20"), Attributes: c1}, {Prefix: host("2001:db8:10::10"), Attributes: c1}}},
		{"a /25 aggregate beside that pod CIDR is announced, the /32 in the /25 holding it is not aggregated",
			[]kbgpv1.BGPAdvertisement{ad("lb", "65001:1", 25, 0, nil, lb, kbgpv1.ServiceLoadBalancerIP)}, []corev1.Service{a, b, far}, nil, nil, []*corev1.Node{otherNode},
			[]bgp.Path{{Prefix: pfx("203.0.113.0/25"), Attributes: c1}, {Prefix: host("203.0.113.200"), Attributes: c1}, {Prefix: host("2001:db8:10::10"), Attributes: c1}}},
		{"two advertisements giving one aggregate: merged attributes",
			[]kbgpv1.BGPAdvertisement{ad("one", "65001:1", 24, 0, nil, lb, kbgpv1.ServiceLoadBalancerIP), ad("two", "65001:2", 24, 0, nil, lb, kbgpv1.ServiceLoadBalancerIP)},
			[]corev1.Service{b}, nil, nil, nil,
			[]bgp.Path{{Prefix: pfx("203.0.113.0/24"), Attributes: c12}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := Input{Advertisements: tc.ads, Services: tc.svcs, EndpointSlices: tc.slices, Node: node(), Reserved: NewReserved()}
			in.poolRanges = PoolRanges(tc.pools)
			in.nodeOwned = nodeOwned(in.Node)
			for _, n := range tc.others {
				in.Reserved.Set(ReservedOwner{Kind: "Node", Name: n.Name}, NodeReservations(n))
			}
			if diff := cmp.Diff(tc.want, advertisedPaths(in, both, false), cmpOpts...); diff != "" {
				t.Errorf("paths (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAggregateGivesWayToANewReservation: a Node whose pod CIDR appears inside an
// announced aggregate, though no Service address is in that pod CIDR, turns the
// aggregate back into host routes once the Services Widen names are set again; its
// leaving brings the aggregate back.
func TestAggregateGivesWayToANewReservation(t *testing.T) {
	sel := &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"advertise": "bgp"}}
	ad := serviceAdWithin("lb", nil, "65001:1", nil, []kbgpv1.CIDR{"203.0.113.0/24"}, kbgpv1.ServiceLoadBalancerIP)
	ad.Spec.Advertisements[0].Service.AggregationLengthIPv4 = ptr.To[int32](24)
	b := lbService("b", nil, "203.0.113.20")
	in := Input{Advertisements: []kbgpv1.BGPAdvertisement{ad}, Node: node(), Reserved: NewReserved()}
	in.nodeOwned = nodeOwned(in.Node)
	x := exports.New(in.Node.Name)
	p := exports.PeerKey{Name: "peer"}
	pods, rules := peerAdvertisements(in, []familyAdvertisements{{bgp.FamilyIPv4Unicast, sel}}, testLocalASN, false)
	x.AddPeer(p, peerAddr(p.Name), pods, serviceRules(rules))
	key := types.NamespacedName{Namespace: b.Namespace, Name: b.Name}
	x.SetService(key, &b, nil)
	lengths := aggregationLengths(in.Advertisements)

	announced := func() []netip.Prefix { return slices.SortedFunc(maps.Keys(x.Export(p)), netip.Prefix.Compare) }
	reserve := func(now []Reservation) {
		changed := in.Reserved.Set(ReservedOwner{Kind: "Node", Name: "worker-2"}, now)
		for _, k := range x.ClaimantsIn(lengths.Widen(changed)) {
			x.SetService(k, &b, nil)
		}
	}
	agg := []netip.Prefix{netip.MustParsePrefix("203.0.113.0/24")}
	if got := announced(); !slices.Equal(got, agg) {
		t.Fatalf("before: %v, want %v", got, agg)
	}
	reserve([]Reservation{{Prefix: netip.MustParsePrefix("203.0.113.192/26"), Kind: ReservedPodCIDR}})
	if got, want := announced(), []netip.Prefix{host("203.0.113.20")}; !slices.Equal(got, want) {
		t.Errorf("with the pod CIDR inside the aggregate: %v, want %v", got, want)
	}
	reserve(nil)
	if got := announced(); !slices.Equal(got, agg) {
		t.Errorf("after the Node left: %v, want %v", got, agg)
	}
}
