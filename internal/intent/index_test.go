package intent

import (
	"maps"
	"math/rand/v2"
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

// advertisedPaths is what one peer with families fams is sent, through an exports.Index
// as Build uses it, sorted by prefix.
func advertisedPaths(in Input, fams []familyAdvertisements, ibgp bool) []bgp.Path {
	x := exports.New(in.Node.Name)
	p := exports.PeerKey{Name: "peer"}
	pods, rules := peerAdvertisements(in, fams, testLocalASN, ibgp)
	x.AddPeer(p, peerAddr(p.Name), pods, serviceRules(rules))
	for i := range in.Services {
		svc := &in.Services[i]
		key := types.NamespacedName{Namespace: svc.Namespace, Name: svc.Name}
		x.SetService(key, svc, in.EndpointSlices[key])
	}
	return sortedPaths(x.Export(p))
}

// peerAddrs are the addresses of the tests' peers, by name; peerNames the reverse.
var peerAddrs = map[string]netip.Addr{
	"a": netip.MustParseAddr("10.0.0.1"), "b": netip.MustParseAddr("10.0.0.2"), "peer": netip.MustParseAddr("10.0.0.3"),
	"dual": netip.MustParseAddr("10.0.0.4"), "v4": netip.MustParseAddr("10.0.0.5"), "none": netip.MustParseAddr("10.0.0.6"),
}

var peerNames = func() map[netip.Addr]string {
	out := map[netip.Addr]string{}
	for name, addr := range peerAddrs {
		out[addr] = name
	}
	return out
}()

func peerAddr(name string) netip.Addr { return peerAddrs[name] }

func sortedPaths(export map[netip.Prefix]bgp.PathAttributes) []bgp.Path {
	var out []bgp.Path
	for _, p := range slices.SortedFunc(maps.Keys(export), bgp.ComparePrefix) {
		out = append(out, bgp.Path{Prefix: p, Attributes: export[p]})
	}
	return out
}

// TestSetServiceReturnsTheDifference follows one Service through its life with two
// peers that select it differently: only what changed comes back, per peer.
func TestSetServiceReturnsTheDifference(t *testing.T) {
	sel := &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"advertise": "bgp"}}
	in := Input{Node: node(), Advertisements: []kbgpv1.BGPAdvertisement{
		serviceAd("lb", nil, "65001:1", kbgpv1.ServiceLoadBalancerIP),
	}}
	x := exports.New("worker-1")
	a, b := exports.PeerKey{Name: "a"}, exports.PeerKey{Name: "b"}
	_, rulesA := peerAdvertisements(in, []familyAdvertisements{{bgp.FamilyIPv4Unicast, sel}}, testLocalASN, false)
	x.AddPeer(a, peerAddr(a.Name), nil, serviceRules(rulesA))
	x.AddPeer(b, peerAddr(b.Name), nil, serviceRules(nil)) // selects nothing
	c1 := bgp.PathAttributes{Communities: []uint32{65001<<16 | 1}}
	key := types.NamespacedName{Namespace: "shop", Name: "web"}
	web := lbService("web", nil, "203.0.113.10")

	steps := []struct {
		name string
		svc  *corev1.Service
		want bgp.ExportChanges
	}{
		{"created: peer a gets it, b nothing", &web,
			bgp.ExportChanges{{}: {{Peer: peerAddr("a"), Set: []bgp.Path{{Prefix: host("203.0.113.10"), Attributes: c1}}}}}},
		{"unchanged: nothing", &web, nil},
		{"IP changed: one set, one remove", ptr.To(lbService("web", nil, "203.0.113.20")),
			bgp.ExportChanges{{}: {{Peer: peerAddr("a"), Set: []bgp.Path{{Prefix: host("203.0.113.20"), Attributes: c1}}, Remove: []netip.Prefix{host("203.0.113.10")}}}}},
		{"deleted: withdrawn", nil,
			bgp.ExportChanges{{}: {{Peer: peerAddr("a"), Remove: []netip.Prefix{host("203.0.113.20")}}}}},
	}
	for _, s := range steps {
		if diff := cmp.Diff(s.want, x.SetService(key, s.svc, nil), cmpOpts...); diff != "" {
			t.Errorf("%s: changes (-want +got):\n%s", s.name, diff)
		}
	}
}

// TestSharedPrefixKeepsTheOtherSource: two Services with one address; removing one
// changes the attributes to the other's, and withdraws only when both are gone.
func TestSharedPrefixKeepsTheOtherSource(t *testing.T) {
	sel := &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"advertise": "bgp"}}
	in := Input{Node: node(), Advertisements: []kbgpv1.BGPAdvertisement{
		serviceAd("front", &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"tier": "front"}}, "65001:1", kbgpv1.ServiceLoadBalancerIP),
		serviceAd("all", nil, "65001:2", kbgpv1.ServiceLoadBalancerIP),
	}}
	x := exports.New("worker-1")
	p := exports.PeerKey{Name: "a"}
	_, rules := peerAdvertisements(in, []familyAdvertisements{{bgp.FamilyIPv4Unicast, sel}}, testLocalASN, false)
	x.AddPeer(p, peerAddr(p.Name), nil, serviceRules(rules))
	front := lbService("front", map[string]string{"tier": "front"}, "203.0.113.10")
	back := lbService("back", nil, "203.0.113.10")
	kf, kb := types.NamespacedName{Namespace: "shop", Name: "front"}, types.NamespacedName{Namespace: "shop", Name: "back"}
	both := bgp.PathAttributes{Communities: []uint32{65001<<16 | 1, 65001<<16 | 2}}
	only2 := bgp.PathAttributes{Communities: []uint32{65001<<16 | 2}}

	x.SetService(kf, &front, nil)
	if got := x.SetService(kb, &back, nil); len(got) != 0 {
		t.Errorf("a second source adding nothing new changed the export: %v", got)
	}
	if diff := cmp.Diff(bgp.ExportChanges{{}: {{Peer: peerAddr("a"), Set: []bgp.Path{{Prefix: host("203.0.113.10"), Attributes: only2}}}}},
		x.SetService(kf, nil, nil), cmpOpts...); diff != "" {
		t.Errorf("front deleted (-want +got):\n%s", diff)
	}
	x.SetService(kf, &front, nil)
	if got := x.Export(p)[host("203.0.113.10")]; !cmp.Equal(got, both, cmpOpts...) {
		t.Errorf("both sources: %v, want %v", got, both)
	}
	x.SetService(kf, nil, nil)
	if diff := cmp.Diff(bgp.ExportChanges{{}: {{Peer: peerAddr("a"), Remove: []netip.Prefix{host("203.0.113.10")}}}},
		x.SetService(kb, nil, nil), cmpOpts...); diff != "" {
		t.Errorf("last source deleted (-want +got):\n%s", diff)
	}
}

// TestSharedPrefixAttributesStayInTheOwnersNamespace: the review's fourth claim. A
// Service of another namespace announcing the same address (its external IP, say)
// could add a blackhole community to the owner's prefix, since a shared prefix got the
// union of every source's attributes. The oldest source's namespace owns the
// attributes; a later one of another namespace adds nothing, and once the owner is
// gone its own attributes apply.
func TestSharedPrefixAttributesStayInTheOwnersNamespace(t *testing.T) {
	sel := &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"advertise": "bgp"}}
	in := Input{Node: node(), Advertisements: []kbgpv1.BGPAdvertisement{
		serviceAd("shop", &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"kbgp.io/service-namespace": "shop"}}, "65001:1", kbgpv1.ServiceLoadBalancerIP),
		serviceAd("other", &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"kbgp.io/service-namespace": "other"}}, "65535:666", kbgpv1.ServiceLoadBalancerIP),
	}}
	x := exports.New("worker-1")
	p := exports.PeerKey{Name: "a"}
	_, rules := peerAdvertisements(in, []familyAdvertisements{{bgp.FamilyIPv4Unicast, sel}}, testLocalASN, false)
	x.AddPeer(p, peerAddr(p.Name), nil, serviceRules(rules))
	owner := lbService("web", nil, "203.0.113.10")
	owner.CreationTimestamp = metav1.Unix(1000, 0)
	squatter := lbService("squat", nil, "203.0.113.10")
	squatter.Namespace, squatter.CreationTimestamp = "other", metav1.Unix(2000, 0)
	ko, ks := types.NamespacedName{Namespace: "shop", Name: "web"}, types.NamespacedName{Namespace: "other", Name: "squat"}
	shop := bgp.PathAttributes{Communities: []uint32{65001<<16 | 1}}
	blackhole := bgp.PathAttributes{Communities: []uint32{65535<<16 | 666}}

	x.SetService(ko, &owner, nil)
	if got := x.SetService(ks, &squatter, nil); len(got) != 0 {
		t.Errorf("a later Service of another namespace changed the owner's prefix: %v", got)
	}
	if got := x.Export(p)[host("203.0.113.10")]; !cmp.Equal(got, shop, cmpOpts...) {
		t.Errorf("shared with another namespace: %v, want the owner's %v", got, shop)
	}
	if diff := cmp.Diff(bgp.ExportChanges{{}: {{Peer: peerAddr("a"), Set: []bgp.Path{{Prefix: host("203.0.113.10"), Attributes: blackhole}}}}},
		x.SetService(ko, nil, nil), cmpOpts...); diff != "" {
		t.Errorf("owner deleted (-want +got):\n%s", diff)
	}
}

// TestIncrementalEqualsFullBuild applies random Service and EndpointSlice changes one
// at a time and checks, after each, that the exports the changes add up to are exactly
// what a Build from scratch computes, and so are the refusals the touched Services
// add up to. The Services of two namespaces claim the same few addresses.
func TestIncrementalEqualsFullBuild(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	sel := &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"advertise": "bgp"}}
	in := Input{Node: node(), Advertisements: []kbgpv1.BGPAdvertisement{
		serviceAd("front", &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"tier": "front"}}, "65001:1", kbgpv1.ServiceLoadBalancerIP),
		serviceAd("all", nil, "65001:2", kbgpv1.ServiceLoadBalancerIP, kbgpv1.ServiceExternalIP),
		podAdvertisement("pods", map[string]string{"advertise": "bgp"}, nil),
	}}
	fams := map[string][]familyAdvertisements{
		"dual": {{bgp.FamilyIPv4Unicast, sel}, {bgp.FamilyIPv6Unicast, sel}},
		"v4":   {{bgp.FamilyIPv4Unicast, sel}},
		"none": nil,
	}
	build := func(svcs map[types.NamespacedName]corev1.Service, eps map[types.NamespacedName][]discoveryv1.EndpointSlice) *exports.Index {
		x := exports.New("worker-1")
		for name, f := range fams {
			pods, rules := peerAdvertisements(in, f, testLocalASN, false)
			x.AddPeer(exports.PeerKey{Name: name}, peerAddr(name), pods, serviceRules(rules))
		}
		for k, s := range svcs {
			x.LoadService(k, &s, eps[k])
		}
		return x
	}
	svcs := map[types.NamespacedName]corev1.Service{}
	eps := map[types.NamespacedName][]discoveryv1.EndpointSlice{}
	incremental := build(nil, nil)
	applied := map[string]map[netip.Prefix]bgp.PathAttributes{}
	for name := range fams {
		applied[name] = incremental.Export(exports.PeerKey{Name: name})
	}
	ips := []string{"203.0.113.1", "203.0.113.2", "203.0.113.3", "2001:db8::1", "2001:db8::2"}
	refused := map[string]string{}
	for step := range 600 {
		name := []string{"s1", "s2", "s3", "s4"}[rng.IntN(4)]
		key := types.NamespacedName{Namespace: []string{"shop", "other"}[rng.IntN(2)], Name: name}
		var svc *corev1.Service
		switch rng.IntN(4) {
		case 0:
			delete(svcs, key)
		case 1:
			eps[key] = []discoveryv1.EndpointSlice{slice(name, []string{"worker-1", "worker-2"}[rng.IntN(2)], ptr.To(rng.IntN(2) == 0))}
			if s, ok := svcs[key]; ok {
				svc = &s
			}
		default:
			lbls := map[string]string{}
			if rng.IntN(2) == 0 {
				lbls["tier"] = "front"
			}
			s := lbService(name, lbls, ips[rng.IntN(len(ips))])
			s.Namespace, s.CreationTimestamp = key.Namespace, metav1.Unix(int64(rng.IntN(3)), 0)
			s.Spec.ExternalIPs = []string{ips[rng.IntN(len(ips))]}
			if rng.IntN(2) == 0 {
				s.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
			}
			svcs[key] = s
			svc = &s
		}
		for _, ch := range incremental.SetService(key, svc, eps[key])[bgp.InstanceKey{}] {
			name := peerNames[ch.Peer]
			for _, p := range ch.Set {
				applied[name][p.Prefix] = p.Attributes
			}
			for _, p := range ch.Remove {
				delete(applied[name], p)
			}
		}
		for _, k := range incremental.TouchedRefusals() {
			if msg := incremental.RefusedOf(k); msg != "" {
				refused[k.String()] = msg
			} else {
				delete(refused, k.String())
			}
		}
		full := build(svcs, eps)
		want := map[string]string{}
		for _, f := range full.Refused() {
			want[f.Name] = f.Message
		}
		if diff := cmp.Diff(want, refused); diff != "" {
			t.Fatalf("step %d: refusals differ from a full build (-full +incremental):\n%s", step, diff)
		}
		for name := range fams {
			want := full.Export(exports.PeerKey{Name: name})
			if diff := cmp.Diff(sortedPaths(want), sortedPaths(applied[name]), cmpOpts...); diff != "" {
				t.Fatalf("step %d, peer %s: incremental exports differ from a full build (-full +incremental):\n%s", step, name, diff)
			}
		}
	}
}
