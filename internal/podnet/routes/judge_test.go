package routes

import (
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"

	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/podnet"
)

// TestPolicyRejection is the import policy's decision: prefix lists with ge/le, the
// default route only when allowed, never over the node's own pod CIDRs, next hops of
// another host (an IPv6 one for an IPv4 route, RFC 8950, zoned when link-local).
func TestPolicyRejection(t *testing.T) {
	m := func(prefix string, minLen, maxLen int) bgp.PrefixMatch {
		return bgp.PrefixMatch{Prefix: netip.MustParsePrefix(prefix), MinLen: minLen, MaxLen: maxLen}
	}
	fabric := bgp.RouteImport{Prefixes: []bgp.PrefixMatch{
		m("10.0.0.0/8", 8, 8),       // exact
		m("172.16.0.0/12", 16, 24),  // ge 16 le 24
		m("2001:db8::/32", 48, 128), // ge 48
	}, MaxRoutes: 10}
	withDefault := fabric
	withDefault.AllowDefaultRoute = true
	broad := bgp.RouteImport{Prefixes: []bgp.PrefixMatch{m("0.0.0.0/0", 0, 32)}}
	scope := podnet.ImportScope{Own: []netip.Prefix{netip.MustParsePrefix("10.244.1.0/24")},
		Local: []netip.Prefix{netip.MustParsePrefix("10.70.0.11/24"), netip.MustParsePrefix("fe80::11/64")}}
	tor, torLL := netip.MustParseAddr("10.70.0.1"), netip.MustParseAddr("fe80::1").WithZone("up1")
	for _, tc := range []struct {
		policy  bgp.RouteImport
		prefix  string
		nextHop netip.Addr
		want    string
	}{
		{fabric, "10.0.0.0/8", tor, ""},
		{fabric, "10.1.0.0/16", tor, RejectNotInPolicy},
		{fabric, "172.16.0.0/12", tor, RejectNotInPolicy},
		{fabric, "172.17.0.0/16", tor, ""},
		{fabric, "172.17.3.0/24", tor, ""},
		{fabric, "172.17.3.0/25", tor, RejectNotInPolicy},
		{fabric, "2001:db8:1::/48", torLL, ""},
		{fabric, "2001:db8:1::/47", torLL, RejectNotInPolicy},
		{fabric, "2001:db9::/48", torLL, RejectNotInPolicy},
		{fabric, "10.0.0.0/8", torLL, ""}, // RFC 8950
		{fabric, "10.0.0.0/8", netip.MustParseAddr("fe80::1"), podnet.RejectNoNextHop},
		{fabric, "0.0.0.0/0", tor, RejectDefaultRoute},
		{withDefault, "0.0.0.0/0", tor, ""},
		{withDefault, "0.0.0.0/0", torLL, ""},
		{withDefault, "::/0", torLL, ""},
		{broad, "0.0.0.0/0", tor, RejectDefaultRoute},
		{broad, "10.244.1.0/24", tor, podnet.RejectOwnPodCIDR},
		{broad, "10.244.0.0/16", tor, ""}, // less specific than the pods' connected route
		{broad, "10.244.1.7/32", tor, podnet.RejectOwnPodCIDR},
		{broad, "10.80.0.0/16", netip.MustParseAddr("10.70.0.11"), podnet.RejectLocalNextHop},
		{broad, "10.80.0.0/16", netip.MustParseAddr("fe80::11").WithZone("up1"), podnet.RejectLocalNextHop},
		{broad, "10.80.0.0/16", netip.MustParseAddr("127.0.0.1"), podnet.RejectLocalNextHop},
		{broad, "10.80.0.0/16", netip.MustParseAddr("224.0.0.5"), podnet.RejectNonUnicast},
		{broad, "10.80.0.0/16", netip.Addr{}, podnet.RejectNoNextHop},
	} {
		if got := PolicyRejection(netip.MustParsePrefix(tc.prefix), tc.nextHop, tc.policy, scope); got != tc.want {
			t.Errorf("%s via %s under %v: %q, want %q", tc.prefix, tc.nextHop, tc.policy.Prefixes, got, tc.want)
		}
	}
}

// TestOverCap: past the cap the lowest prefixes (address, then length) stay, whatever
// the order they came in.
func TestOverCap(t *testing.T) {
	ps := func(s ...string) []netip.Prefix {
		var out []netip.Prefix
		for _, p := range s {
			out = append(out, netip.MustParsePrefix(p))
		}
		return out
	}
	set := func(s ...string) map[netip.Prefix]bool {
		if len(s) == 0 {
			return nil
		}
		out := map[netip.Prefix]bool{}
		for _, p := range ps(s...) {
			out[p] = true
		}
		return out
	}
	for _, tc := range []struct {
		accepted []netip.Prefix
		max      int
		want     map[netip.Prefix]bool
	}{
		{ps("10.0.0.0/8", "0.0.0.0/0"), 2, nil},
		{ps("10.2.0.0/16", "10.1.0.0/16", "0.0.0.0/0"), 2, set("10.2.0.0/16")},
		{ps("0.0.0.0/0", "10.1.0.0/16", "10.2.0.0/16"), 2, set("10.2.0.0/16")},
		{ps("10.1.0.0/24", "10.1.0.0/16"), 1, set("10.1.0.0/24")},
		{ps("10.3.0.0/16", "10.1.0.0/16", "10.2.0.0/16"), 1, set("10.2.0.0/16", "10.3.0.0/16")},
	} {
		if diff := cmp.Diff(tc.want, overCap(tc.accepted, tc.max)); diff != "" {
			t.Errorf("%v capped at %d (-want +got):\n%s", tc.accepted, tc.max, diff)
		}
	}
}

// TestNextHops: one multipath route over the distinct next hops of the peers whose
// route may be installed, in order.
func TestNextHops(t *testing.T) {
	a, b, c := netip.MustParseAddr("fe80::a").WithZone("up1"), netip.MustParseAddr("fe80::b").WithZone("up2"), netip.MustParseAddr("10.70.0.3")
	refused := map[netip.Addr]bool{c: true}
	ok := func(peer, _ netip.Addr) bool { return !refused[peer] }
	for _, tc := range []struct {
		name string
		sent map[netip.Addr]netip.Addr
		want []netip.Addr
	}{
		{"none", nil, nil},
		{"one peer", map[netip.Addr]netip.Addr{a: a}, []netip.Addr{a}},
		{"two peers", map[netip.Addr]netip.Addr{b: b, a: a}, []netip.Addr{a, b}},
		{"two peers, one next hop", map[netip.Addr]netip.Addr{a: a, b: a}, []netip.Addr{a}},
		{"a refused peer", map[netip.Addr]netip.Addr{a: a, c: c}, []netip.Addr{a}},
	} {
		if diff := cmp.Diff(tc.want, nextHops(tc.sent, ok), cmp.Comparer(func(x, y netip.Addr) bool { return x == y })); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}
