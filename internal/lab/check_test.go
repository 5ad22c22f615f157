package lab

import (
	"net/netip"
	"slices"
	"testing"

	"kbgp.io/kbgp/internal/bgp"
)

func TestCompareRoutes(t *testing.T) {
	a, b := netip.MustParseAddr("127.0.1.1"), netip.MustParseAddr("127.0.1.2")
	web := netip.MustParsePrefix("100.64.0.10/32")
	pods := netip.MustParsePrefix("10.244.1.0/24")
	want := []expectedRoute{
		{from: a, prefix: web, communities: []string{"65001:200", "65001:1:2"}},
		{from: a, prefix: pods, communities: []string{"65001:100"}},
	}
	webAttrs := bgp.PathAttributes{Communities: []uint32{65001<<16 | 200},
		LargeCommunities: []bgp.LargeCommunity{{GlobalAdmin: 65001, LocalData1: 1, LocalData2: 2}}}
	podAttrs := bgp.PathAttributes{Communities: []uint32{65001<<16 | 100}}
	tests := []struct {
		name string
		got  []bgp.ReceivedRoute
		want []string
	}{
		{"exact", []bgp.ReceivedRoute{{Neighbor: a, Prefix: web, Attributes: webAttrs}, {Neighbor: a, Prefix: pods, Attributes: podAttrs}}, nil},
		{"missing", []bgp.ReceivedRoute{{Neighbor: a, Prefix: web, Attributes: webAttrs}},
			[]string{"missing 10.244.1.0/24 from 127.0.1.1"}},
		{"from the wrong node", []bgp.ReceivedRoute{{Neighbor: a, Prefix: web, Attributes: webAttrs}, {Neighbor: b, Prefix: pods, Attributes: podAttrs}},
			[]string{"missing 10.244.1.0/24 from 127.0.1.1", "unexpected 10.244.1.0/24 from 127.0.1.2"}},
		{"wrong communities", []bgp.ReceivedRoute{{Neighbor: a, Prefix: web, Attributes: podAttrs}, {Neighbor: a, Prefix: pods, Attributes: podAttrs}},
			[]string{"100.64.0.10/32 from 127.0.1.1 has communities [65001:100], want [65001:200 65001:1:2]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := compareRoutes(want, tt.got); !slices.Equal(got, tt.want) {
				t.Errorf("compareRoutes = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestExpectedRoutes pins the answer key: pod CIDRs per node, the cluster-wide Service
// from every node, the Local one only where its endpoint is, nothing of the other class.
func TestExpectedRoutes(t *testing.T) {
	count := map[string]int{}
	for _, r := range expectedRoutes() {
		count[r.prefix.String()]++
	}
	want := map[string]int{
		"10.244.1.0/24": 1, "fd10:244:1::/64": 1, "fd10:244:2::/64": 1, "10.244.3.0/24": 1,
		"100.64.0.10/32": 3, "100.64.0.11/32": 1,
	}
	if len(count) != len(want) {
		t.Fatalf("expected routes %v, want %v", count, want)
	}
	for p, n := range want {
		if count[p] != n {
			t.Errorf("%s expected from %d nodes, want %d", p, count[p], n)
		}
	}
}
