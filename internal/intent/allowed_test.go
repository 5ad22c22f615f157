package intent

import (
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/exports"
)

// TestRefusedServicesAreNamed follows a Service whose external IP moves in and out of
// the allowed ranges: a refused address is named, per Service, with the advertisement
// that refused it; an address another advertisement allows is not refused.
func TestRefusedServicesAreNamed(t *testing.T) {
	sel := &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"advertise": "bgp"}}
	narrow := serviceAdWithin("narrow", nil, "65001:1", []kbgpv1.CIDR{"198.51.100.128/25"}, nil, kbgpv1.ServiceExternalIP)
	wide := serviceAdWithin("wide", nil, "65001:2", testRanges, nil, kbgpv1.ServiceExternalIP)
	withIP := func(ip string) *corev1.Service {
		svc := lbService("web", nil)
		svc.Spec.ExternalIPs = []string{ip}
		return &svc
	}
	key := types.NamespacedName{Namespace: "shop", Name: "web"}
	const refused = "ExternalIP 198.51.100.77 is outside the externalIPPrefixes of BGPAdvertisement narrow: not announced"

	index := func(ads ...kbgpv1.BGPAdvertisement) *exports.Index {
		x := exports.New("worker-1")
		_, rules := peerAdvertisements(Input{Node: node(), Advertisements: ads}, []familyAdvertisements{{bgp.FamilyIPv4Unicast, sel}}, testLocalASN, false)
		x.AddPeer(exports.PeerKey{Name: "a"}, peerAddr("a"), nil, serviceRules(rules))
		return x
	}
	x := index(narrow)
	x.SetService(key, withIP("198.51.100.77"), nil)
	want := []kbgpv1.FailedResource{{Kind: "Service", Name: "shop/web", Message: refused}}
	if diff := cmp.Diff(want, x.Refused()); diff != "" {
		t.Errorf("refused outside the range (-want +got):\n%s", diff)
	}
	x.SetService(key, withIP("198.51.100.200"), nil)
	if got := x.RefusedOf(key); got != "" {
		t.Errorf("refused inside the range: %q", got)
	}
	x.SetService(key, withIP("198.51.100.77"), nil)
	x.SetService(key, nil, nil)
	if got := x.Refused(); len(got) != 0 {
		t.Errorf("a deleted Service is still refused: %v", got)
	}

	both := index(narrow, wide)
	if changes := both.SetService(key, withIP("198.51.100.77"), nil); len(changes) != 1 {
		t.Errorf("the wide advertisement does not announce it: %v", changes)
	}
	if got := both.RefusedOf(key); got != "" {
		t.Errorf("an address another advertisement announces is reported refused: %q", got)
	}
}

func FuzzParseRanges(f *testing.F) {
	for _, s := range []string{"203.0.113.0/24", "2001:db8::/32", "203.0.113.7/24", "", "::/0", "300.1.1.1/8", "10.0.0.0/33"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range parseRanges([]kbgpv1.CIDR{kbgpv1.CIDR(s)}) {
			if p != p.Masked() || !p.IsValid() {
				t.Fatalf("parseRanges(%q) = %v: not a valid masked prefix", s, p)
			}
			if !(allowedRanges{externalIP: []netip.Prefix{p}}).allows(kbgpv1.ServiceExternalIP, p.Addr(), nil) {
				t.Fatalf("%v does not allow its own address", p)
			}
		}
	})
}

// TestPoolAddressesAreAllowed announces a load-balancer IP that lies in a
// LoadBalancerIPPool block (CIDR or start–stop range) with no loadBalancerIPPrefixes
// at all, and refuses one outside every pool.
func TestPoolAddressesAreAllowed(t *testing.T) {
	sel := &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"advertise": "bgp"}}
	ad := serviceAdWithin("lb", nil, "65001:1", nil, nil, kbgpv1.ServiceLoadBalancerIP)
	pools := []kbgpv1.LoadBalancerIPPool{{Spec: kbgpv1.LoadBalancerIPPoolSpec{Blocks: []kbgpv1.IPBlock{
		{CIDR: "203.0.113.0/28"}, {Start: "198.51.100.10", Stop: "198.51.100.20"}, {Start: "198.51.100.30", Stop: "198.51.100.25"},
	}}}}
	_, rules := peerAdvertisements(Input{Node: node(), Advertisements: []kbgpv1.BGPAdvertisement{ad}, poolRanges: PoolRanges(pools)},
		[]familyAdvertisements{{bgp.FamilyIPv4Unicast, sel}}, testLocalASN, false)
	x := exports.New("worker-1")
	x.AddPeer(exports.PeerKey{Name: "a"}, peerAddr("a"), nil, serviceRules(rules))
	key := types.NamespacedName{Namespace: "shop", Name: "web"}
	for _, tc := range []struct {
		ip      string
		allowed bool
	}{
		{"203.0.113.15", true}, {"198.51.100.10", true}, {"198.51.100.20", true},
		{"198.51.100.21", false}, {"203.0.113.16", false},
		{"198.51.100.27", false}, // in the block whose stop lies below its start
	} {
		svc := lbService("web", nil, tc.ip)
		x.SetService(key, &svc, nil)
		refused := x.RefusedOf(key)
		if tc.allowed != (refused == "") {
			t.Errorf("%s: refused %q, want allowed %v", tc.ip, refused, tc.allowed)
		}
		if !tc.allowed && refused != "LoadBalancerIP "+tc.ip+" is in no LoadBalancerIPPool serving the Service and outside the loadBalancerIPPrefixes of BGPAdvertisement lb: not announced" {
			t.Errorf("%s: message %q", tc.ip, refused)
		}
	}
}

// TestTooManyAddressesRefuseTheService: the review's third claim. 1,024 external IPs
// on one Service became 1,024 /32s to every peer. Past maxAddressesPerService (default
// 8 per family) the Service is refused as a whole and named; its other family and the
// other Services are still announced.
func TestTooManyAddressesRefuseTheService(t *testing.T) {
	sel := &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"advertise": "bgp"}}
	ad := serviceAdWithin("ext", nil, "65001:1", []kbgpv1.CIDR{"198.51.100.0/22", "2001:db8::/32"}, nil, kbgpv1.ServiceExternalIP)
	withIPs := func(n int, v6 string) *corev1.Service {
		svc := lbService("flood", nil)
		svc.Spec.ExternalIPs = []string{v6}
		for i := range n {
			svc.Spec.ExternalIPs = append(svc.Spec.ExternalIPs, netip.AddrFrom4([4]byte{198, 51, byte(100 + i/256), byte(i % 256)}).String())
		}
		return &svc
	}
	index := func(max *int32) *exports.Index {
		ad := ad.DeepCopy()
		ad.Spec.Advertisements[0].Service.MaxAddressesPerService = max
		x := exports.New("worker-1")
		_, rules := peerAdvertisements(Input{Node: node(), Advertisements: []kbgpv1.BGPAdvertisement{*ad}},
			[]familyAdvertisements{{bgp.FamilyIPv4Unicast, sel}, {bgp.FamilyIPv6Unicast, sel}}, testLocalASN, false)
		x.AddPeer(exports.PeerKey{Name: "a"}, peerAddr("a"), nil, serviceRules(rules))
		return x
	}
	key := types.NamespacedName{Namespace: "shop", Name: "flood"}
	x := index(nil)
	x.SetService(key, withIPs(8, "2001:db8::1"), nil)
	if got := x.RefusedOf(key); got != "" || len(x.Export(exports.PeerKey{Name: "a"})) != 9 {
		t.Fatalf("8 IPv4 addresses (the default cap): refused %q, export %v", got, x.Export(exports.PeerKey{Name: "a"}))
	}
	x.SetService(key, withIPs(1024, "2001:db8::1"), nil)
	want := "1024 addresses of one family exceed the maxAddressesPerService 8 of BGPAdvertisement ext: not announced"
	if got := x.RefusedOf(key); got != want {
		t.Errorf("refused %q, want %q", got, want)
	}
	if got := x.Export(exports.PeerKey{Name: "a"}); len(got) != 1 || !hasPrefix(got, "2001:db8::1/128") {
		t.Errorf("export after the flood: %d prefixes, want only the IPv6 address", len(got))
	}
	x = index(ptr.To[int32](2000))
	x.SetService(key, withIPs(1024, "2001:db8::1"), nil)
	if got := x.RefusedOf(key); got != "" || len(x.Export(exports.PeerKey{Name: "a"})) != 1025 {
		t.Errorf("a raised cap: refused %q, %d exported", got, len(x.Export(exports.PeerKey{Name: "a"})))
	}
}

func hasPrefix(export map[netip.Prefix]bgp.PathAttributes, prefix string) bool {
	_, ok := export[netip.MustParsePrefix(prefix)]
	return ok
}

// TestNodeAddressesAreNeverServiceAddresses: the review's second claim, for what a node
// knows of itself. Inside externalIPPrefixes that allow them, a Service's external IP
// equal to the node's address or inside its pod CIDR would be a more-specific /32 of the
// node or of a pod (CVE-2020-8554, carried over BGP): refused and named.
func TestNodeAddressesAreNeverServiceAddresses(t *testing.T) {
	sel := &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"advertise": "bgp"}}
	ad := serviceAdWithin("ext", nil, "65001:1", []kbgpv1.CIDR{"10.0.0.0/8"}, []kbgpv1.CIDR{"10.0.0.0/8"}, kbgpv1.ServiceExternalIP, kbgpv1.ServiceLoadBalancerIP)
	in := Input{Node: node(), Advertisements: []kbgpv1.BGPAdvertisement{ad}}
	in.nodeOwned = nodeOwned(in.Node)
	_, rules := peerAdvertisements(in, []familyAdvertisements{{bgp.FamilyIPv4Unicast, sel}}, testLocalASN, false)
	x := exports.New("worker-1")
	x.AddPeer(exports.PeerKey{Name: "a"}, peerAddr("a"), nil, serviceRules(rules))
	key := types.NamespacedName{Namespace: "shop", Name: "web"}
	for _, tc := range []struct {
		external, lb, refused string
	}{
		{"10.0.0.10", "", "ExternalIP 10.0.0.10 is an address of this node or in its pod CIDRs: not announced"},
		{"10.244.1.7", "", "ExternalIP 10.244.1.7 is an address of this node or in its pod CIDRs: not announced"},
		{"", "10.0.0.10", "LoadBalancerIP 10.0.0.10 is an address of this node or in its pod CIDRs: not announced"},
		{"10.1.2.3", "", ""},
	} {
		svc := lbService("web", nil)
		svc.Spec.ExternalIPs = nil
		if tc.external != "" {
			svc.Spec.ExternalIPs = []string{tc.external}
		}
		if tc.lb != "" {
			svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: tc.lb}}
		}
		x.SetService(key, &svc, nil)
		if got := x.RefusedOf(key); got != tc.refused {
			t.Errorf("%s%s: refused %q, want %q", tc.external, tc.lb, got, tc.refused)
		}
	}
}
