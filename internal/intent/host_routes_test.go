package intent

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/exports"
)

// TestHostRouteSetKeepsTheFirstOfEachPrefix adds random routes, with repeated prefixes
// and both traffic policies, to a hostRouteSet and checks it against a plain scan: the
// same routes in the same order, the first route of a prefix kept, below and past the
// number where it starts indexing.
func TestHostRouteSetKeepsTheFirstOfEachPrefix(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, scanUpTo - 1, scanUpTo, scanUpTo + 1, 3 * scanUpTo, 500} {
		var set hostRouteSet
		var want []hostRoute
		for range n {
			r := hostRoute{prefix: netip.PrefixFrom(netip.AddrFrom4([4]byte{198, 51, 100, byte(rng.IntN(n/2 + 1))}), 32), nodeLocal: rng.IntN(2) == 0}
			set.add(r)
			if !slices.ContainsFunc(want, func(h hostRoute) bool { return h.prefix == r.prefix }) {
				want = append(want, r)
			}
		}
		if !slices.Equal(set.routes, want) {
			t.Errorf("%d routes added: got %v, want %v", n, set.routes, want)
		}
	}
}

// BenchmarkServiceAddresses sets, then deletes, one Service with n external IPs through
// intent's rules into an index with one peer: with maxAddressesPerService raised to
// its maximum (4,096) and with the default cap (8), where the Service is refused. The
// API server caps neither, so the cost must stay linear in n: a constant time per
// address across the sizes.
func BenchmarkServiceAddresses(b *testing.B) {
	sel := &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"advertise": "bgp"}}
	for _, c := range []struct {
		limit *int32
		n     []int
	}{{ptr.To[int32](4096), []int{64, 512, 4096}}, {nil, []int{64, 4096, 32768}}} {
		for _, n := range c.n {
			limit := kbgpv1.DefaultMaxAddressesPerService
			if c.limit != nil {
				limit = int(*c.limit)
			}
			b.Run(fmt.Sprintf("cap=%d/addresses=%d", limit, n), func(b *testing.B) {
				ad := serviceAdWithin("ext", nil, "65001:1", []kbgpv1.CIDR{"10.128.0.0/10"}, nil, kbgpv1.ServiceExternalIP)
				ad.Spec.Advertisements[0].Service.MaxAddressesPerService = c.limit
				_, rules := peerAdvertisements(Input{Node: node(), Advertisements: []kbgpv1.BGPAdvertisement{ad}},
					[]familyAdvertisements{{bgp.FamilyIPv4Unicast, sel}}, testLocalASN, false)
				x := exports.New("worker-1")
				x.AddPeer(exports.PeerKey{Name: "a"}, peerAddr("a"), nil, serviceRules(rules))
				svc := lbService("bulk", nil)
				for i := range n {
					svc.Spec.ExternalIPs = append(svc.Spec.ExternalIPs, netip.AddrFrom4([4]byte{10, 128 + byte(i>>16), byte(i >> 8), byte(i)}).String())
				}
				key := types.NamespacedName{Namespace: svc.Namespace, Name: svc.Name}
				for b.Loop() {
					x.SetService(key, &svc, nil)
					x.SetService(key, (*corev1.Service)(nil), nil)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/address")
			})
		}
	}
}
