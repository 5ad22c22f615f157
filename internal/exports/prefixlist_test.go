package exports

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"net/netip"
	"runtime"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"kbgp.io/kbgp/internal/bgp"
)

// TestPrefixListIsAList: a prefixList yields, and finds, the entries it was made of
// (IPv4 host prefixes, wider IPv4 ones, IPv4-mapped and IPv6 host prefixes, in any
// order) and no other, with no spare capacity.
func TestPrefixListIsAList(t *testing.T) {
	// candidates are 64 prefixes of each kind; a round picks some of them.
	var candidates []netip.Prefix
	for b := range byte(64) {
		candidates = append(candidates,
			netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 0, 0, b}), 32),
			netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 0, b, 0}), 24),
			netip.PrefixFrom(netip.AddrFrom16([16]byte{10: 0xff, 11: 0xff, 12: 10, 15: b}), 128),
			netip.PrefixFrom(netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 15: b}), 128))
	}
	rng := rand.New(rand.NewPCG(42, 43))
	prefix := func() netip.Prefix { return candidates[rng.IntN(len(candidates))] }
	for round := range 200 {
		want := map[netip.Prefix]*bgp.PathAttributes{}
		var items []Route
		for range rng.IntN(40) {
			p := prefix()
			if _, dup := want[p]; !dup {
				want[p] = &bgp.PathAttributes{}
				items = append(items, Route{Prefix: p, Attributes: want[p]})
			}
		}
		l := prefixListOf(items, Route.entry)
		got := maps.Collect(l.all())
		if !maps.Equal(got, want) || l.len() != len(want) {
			t.Fatalf("round %d: the list of %v yields %v (len %d)", round, want, got, l.len())
		}
		if cap(l.hosts4) != len(l.hosts4) || cap(l.other) != len(l.other) {
			t.Errorf("round %d: spare capacity: %d of %d, %d of %d", round, len(l.hosts4), cap(l.hosts4), len(l.other), cap(l.other))
		}
		for range 20 {
			p := prefix()
			attrs, ok := l.get(p)
			if w, wok := want[p]; ok != wok || attrs != w {
				t.Fatalf("round %d: get(%v) = %p, %v; want %p, %v", round, p, attrs, ok, w, wok)
			}
		}
	}
}

// TestPrefixListOfHostRoutes: a Service's 100,000 IPv4 host routes, as the index keeps
// them, take 16 bytes a route (a []Route takes 40) and its claims 5 (a []addrClaim 32),
// up to the rounding of a large allocation to whole pages.
func TestPrefixListOfHostRoutes(t *testing.T) {
	const n = 100_000
	attrs := &bgp.PathAttributes{}
	routes := make([]Route, n)
	claims := make([]addrClaim, n)
	for i := range n {
		addr := netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)})
		routes[i] = Route{Prefix: netip.PrefixFrom(addr, 32), Attributes: attrs}
		claims[i] = addrClaim{addr: addr, rank: claimExternalIP}
	}
	for _, c := range []struct {
		name string
		make func() any
		max  float64
	}{
		{"routes", func() any { return prefixListOf(routes, Route.entry) }, 17},
		{"claims", func() any { return prefixListOf(claims, addrClaim.entry) }, 6},
	} {
		before := allocated()
		l := c.make()
		perRoute := float64(allocated()-before) / n
		runtime.KeepAlive(l)
		t.Logf("%s: %.2f bytes a route", c.name, perRoute)
		if perRoute > c.max {
			t.Errorf("%d host %s take %.2f bytes each, want at most %.0f", n, c.name, perRoute, c.max)
		}
	}
}

// allocated is how many bytes this process has allocated so far.
func allocated() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.TotalAlloc
}

// TestIndexBytesPerRoute: the index keeps B1's Services (100 of 1,000 external IPs
// each, one peer) in at most 80 bytes a route, the Services themselves not counted:
// their routes and claims in prefixLists, the contributors and the claims' owners in
// bgp.PrefixMaps of 16-byte values. Measured: 60 bytes; 95 with 24-byte values, 147
// with []Route and []addrClaim besides.
func TestIndexBytesPerRoute(t *testing.T) {
	const services, perService = 100, 1000
	keys := make([]types.NamespacedName, services)
	svcs := make([]*corev1.Service, services)
	for i := range services {
		keys[i], svcs[i] = externalIP("bulk", fmt.Sprintf("svc-%d", i), 1, "")
		svcs[i].Spec.ExternalIPs = nil
		for j := range perService {
			svcs[i].Spec.ExternalIPs = append(svcs[i].Spec.ExternalIPs, netip.AddrFrom4([4]byte{10, byte(i), byte(j >> 8), byte(j)}).String())
		}
	}
	before := liveHeap()
	x := New("worker-1")
	x.AddPeer(PeerKey{Instance: bgp.InstanceKey{LocalASN: 65001}, Name: "tor"}, netip.MustParseAddr("10.0.0.1"), nil, &announceAll{})
	for i := range services {
		x.SetService(keys[i], svcs[i], nil)
	}
	perRoute := float64(int64(liveHeap())-int64(before)) / (services * perService)
	runtime.KeepAlive(x)
	t.Logf("%.1f bytes a route", perRoute)
	if perRoute > 80 {
		t.Errorf("the index keeps %.1f bytes a route, want at most 80", perRoute)
	}
}

// liveHeap is the heap in use after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
