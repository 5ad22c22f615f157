package server

import (
	"net/netip"
	"testing"

	"github.com/osrg/gobgp/v4/pkg/apiutil"
	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// TestAPIPathAttributesTakenAsGiven checks kbgp patch "api path attributes taken as
// given": IPv4 paths added with one NEXT_HOP value share it, as they share the other
// attributes they were given, where each got a NEXT_HOP of its own; a path whose
// next hop comes from elsewhere, or is not IPv4, gets one made as before; a repeated
// attribute is still refused; and a conversion makes no NEXT_HOP, grows no list and
// makes no map.
func TestAPIPathAttributesTakenAsGiven(t *testing.T) {
	origin := bgp.NewPathAttributeOrigin(bgp.BGP_ORIGIN_ATTR_TYPE_IGP)
	nexthop, _ := bgp.NewPathAttributeNextHop(netip.MustParseAddr("10.0.0.1"))
	apiPath := func(prefix string, attrs ...bgp.PathAttributeInterface) *apiutil.Path {
		nlri, _ := bgp.NewIPAddrPrefix(netip.MustParsePrefix(prefix))
		return &apiutil.Path{Family: bgp.RF_IPv4_UC, Nlri: nlri, Attrs: attrs}
	}
	convert := func(p *apiutil.Path, vrf bool) []bgp.PathAttributeInterface {
		t.Helper()
		path, err := apiutil2Path(p, vrf)
		if err != nil {
			t.Fatal(err)
		}
		return path.GetPathAttrs()
	}
	nextHopOf := func(attrs []bgp.PathAttributeInterface) *bgp.PathAttributeNextHop {
		for _, a := range attrs {
			if nh, ok := a.(*bgp.PathAttributeNextHop); ok {
				return nh
			}
		}
		return nil
	}

	a := nextHopOf(convert(apiPath("10.1.0.1/32", origin, nexthop), false))
	b := nextHopOf(convert(apiPath("10.1.0.2/32", origin, nexthop), false))
	if a != nexthop || b != nexthop {
		t.Errorf("two IPv4 paths added with one NEXT_HOP hold %p and %p, want the one given (%p)", a, b, nexthop)
	}

	// Into a VRF, the next hop goes into an MP_REACH_NLRI made for the path.
	for _, attr := range convert(apiPath("10.1.0.3/32", origin, nexthop), true) {
		if attr == bgp.PathAttributeInterface(nexthop) {
			t.Error("a VRF path holds the NEXT_HOP given, want an MP_REACH_NLRI")
		}
	}
	// The next hop of an MP_REACH_NLRI given after the NEXT_HOP wins, as before.
	mpNLRI, _ := bgp.NewIPAddrPrefix(netip.MustParsePrefix("10.1.0.4/32"))
	mp, err := bgp.NewPathAttributeMpReachNLRI(bgp.RF_IPv4_UC, []bgp.PathNLRI{{NLRI: mpNLRI}}, netip.MustParseAddr("10.0.0.2"))
	if err != nil {
		t.Fatal(err)
	}
	if nh := nextHopOf(convert(apiPath("10.1.0.4/32", origin, nexthop, mp), false)); nh == nil || nh == nexthop || nh.Value != netip.MustParseAddr("10.0.0.2") {
		t.Errorf("NEXT_HOP then an MP_REACH_NLRI to 10.0.0.2: got %v, want a NEXT_HOP 10.0.0.2 of its own", nh)
	}
	if _, err := apiutil2Path(apiPath("10.1.0.5/32", origin, nexthop, origin), false); err == nil {
		t.Error("ORIGIN given twice: accepted, want an error")
	}

	p := apiPath("10.1.0.6/32", origin, nexthop)
	// The path and its origin, the attribute list, and the prefix's text (two); 7 without
	// the patch (a NEXT_HOP, a map of the types seen, the list grown).
	if allocs := testing.AllocsPerRun(100, func() { _, _ = apiutil2Path(p, false) }); allocs > 5 {
		t.Errorf("a conversion makes %.0f allocations, want at most 5 (the path and its origin, the attribute list, the prefix's text)", allocs)
	}
}
