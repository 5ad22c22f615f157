package intent

import (
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/utils/ptr"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
)

// TestRouteImport: a family's import policy with ge/le resolved as in FRR's prefix
// lists and the cap's default.
func TestRouteImport(t *testing.T) {
	m := func(prefix string, minLen, maxLen int) bgp.PrefixMatch {
		return bgp.PrefixMatch{Prefix: netip.MustParsePrefix(prefix), MinLen: minLen, MaxLen: maxLen}
	}
	for _, tc := range []struct {
		name string
		in   kbgpv1.RouteImport
		fam  bgp.Family
		want bgp.RouteImport
	}{
		{"default route only", kbgpv1.RouteImport{AllowDefaultRoute: true}, bgp.FamilyIPv4Unicast,
			bgp.RouteImport{AllowDefaultRoute: true, MaxRoutes: kbgpv1.DefaultImportMaxRoutes}},
		{"ge and le", kbgpv1.RouteImport{MaxRoutes: ptr.To[int32](5), Prefixes: []kbgpv1.ImportPrefix{
			{Prefix: "10.0.0.0/8"},
			{Prefix: "172.16.0.0/12", GE: ptr.To[int32](16)},
			{Prefix: "192.168.0.0/16", LE: ptr.To[int32](24)},
			{Prefix: "100.64.0.0/10", GE: ptr.To[int32](20), LE: ptr.To[int32](28)},
		}}, bgp.FamilyIPv4Unicast, bgp.RouteImport{MaxRoutes: 5, Prefixes: []bgp.PrefixMatch{
			m("10.0.0.0/8", 8, 8), m("172.16.0.0/12", 16, 32), m("192.168.0.0/16", 16, 24), m("100.64.0.0/10", 20, 28),
		}}},
		{"IPv6", kbgpv1.RouteImport{Prefixes: []kbgpv1.ImportPrefix{{Prefix: "2001:db8::/32", GE: ptr.To[int32](48)}, {Prefix: "10.0.0.0/8"}}},
			bgp.FamilyIPv6Unicast, bgp.RouteImport{MaxRoutes: kbgpv1.DefaultImportMaxRoutes, Prefixes: []bgp.PrefixMatch{m("2001:db8::/32", 48, 128)}}},
	} {
		if diff := cmp.Diff(tc.want, routeImport(tc.in, tc.fam), cmp.Comparer(func(a, b netip.Prefix) bool { return a == b })); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}
