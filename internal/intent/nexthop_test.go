package intent

import (
	"net/netip"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"kbgp.io/kbgp/internal/bgp"
)

func TestCrossFamilyNextHop(t *testing.T) {
	v4, v6 := netip.MustParsePrefix("10.244.1.0/24"), netip.MustParsePrefix("2001:db8:244:1::/64")
	dual := node()
	v4Only := node()
	v4Only.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.0.10"}, {Type: corev1.NodeExternalIP, Address: "2001:db8::99"}}
	tests := []struct {
		name       string
		node       *corev1.Node
		peer       string
		want4      string // next hop of the IPv4 prefix and rule; "" for none
		want6      string
		ruleFamily bgp.Family
	}{
		{"IPv4 session: IPv6 routes get the IPv6 InternalIP", dual, "10.1.1.1", "", "2001:db8::10", bgp.FamilyIPv6Unicast},
		{"IPv6 session: IPv4 routes get the IPv4 InternalIP", dual, "2001:db8:1::2", "10.0.0.10", "", bgp.FamilyIPv4Unicast},
		{"IPv4-mapped peer address counts as IPv4", dual, "::ffff:10.1.1.1", "", "2001:db8::10", bgp.FamilyIPv6Unicast},
		{"no InternalIP of the other family (an ExternalIP does not count): the speaker's choice", v4Only, "10.1.1.1", "", "", bgp.FamilyIPv6Unicast},
		{"no Node: nothing", nil, "10.1.1.1", "", "", bgp.FamilyIPv6Unicast},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pods := []bgp.Path{{Prefix: v4}, {Prefix: v6}}
			rules := []serviceRule{{family: tc.ruleFamily}}
			crossFamilyNextHop(tc.node, netip.MustParseAddr(tc.peer), pods, rules)
			got := func(a netip.Addr) string {
				if !a.IsValid() {
					return ""
				}
				return a.String()
			}
			if got(pods[0].Attributes.NextHop) != tc.want4 || got(pods[1].Attributes.NextHop) != tc.want6 {
				t.Errorf("pod next hops %q, %q; want %q, %q", got(pods[0].Attributes.NextHop), got(pods[1].Attributes.NextHop), tc.want4, tc.want6)
			}
			want := tc.want4
			if tc.ruleFamily == bgp.FamilyIPv6Unicast {
				want = tc.want6
			}
			if got(rules[0].attrs.NextHop) != want {
				t.Errorf("rule next hop %q, want %q", got(rules[0].attrs.NextHop), want)
			}
		})
	}
}
