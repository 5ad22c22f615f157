package component

import (
	"net/netip"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/testing/gobgptest"
)

var routerC = netip.MustParseAddr("127.0.0.5")

// waitReceived waits until the router has exactly want in family, prefixes and
// attributes compared, and shows the difference when it never does. Every route must
// come with ORIGIN IGP, whatever the speaker did to make a change reach the router.
func waitReceived(t *testing.T, r *gobgptest.Router, family bgp.Family, want ...bgp.ReceivedRoute) {
	t.Helper()
	opts := cmp.Options{
		cmp.Comparer(func(a, b netip.Prefix) bool { return a == b }), cmp.Comparer(func(a, b netip.Addr) bool { return a == b }),
		cmpopts.EquateEmpty(), cmpopts.IgnoreFields(bgp.ReceivedRoute{}, "Neighbor", "NextHop", "ASPath", "Origin"),
	}
	deadline := time.Now().Add(sessionTimeout)
	for {
		got := r.Routes(t, family)
		diff := cmp.Diff(want, got, opts)
		if diff == "" {
			for _, rt := range got {
				if rt.Origin != bgp.OriginIGP {
					t.Fatalf("%s at %s has ORIGIN %q, want IGP", rt.Prefix, r.Addr, rt.Origin)
				}
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s routes at %s after %s (-want +got):\n%s", family, r.Addr, sessionTimeout, diff)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// route is a prefix as a router receives it, with its attributes.
func route(p netip.Prefix, a bgp.PathAttributes) bgp.ReceivedRoute {
	return bgp.ReceivedRoute{Prefix: p, Attributes: a}
}

// TestEachPeerGetsItsOwnAttributes: one speaker sends one prefix to two eBGP peers
// with different communities and to an iBGP peer with its local preference; changing
// one peer's attributes, or withdrawing the prefix from one peer, leaves the others
// alone and resets no session.
func TestEachPeerGetsItsOwnAttributes(t *testing.T) {
	a, b, c := startRouter(t, routerA, 65010), startRouter(t, routerB, 65020), startRouter(t, routerC, 65001)
	set := newTestSpeakers(t)
	const noExport = 0xFFFFFF01
	rackA := bgp.PathAttributes{Communities: []uint32{65001<<16 | 101}, LargeCommunities: []bgp.LargeCommunity{{GlobalAdmin: 65001, LocalData1: 1, LocalData2: 101}}}
	rackB := bgp.PathAttributes{Communities: []uint32{65001<<16 | 102, noExport}}
	ibgp := bgp.PathAttributes{Communities: []uint32{65001<<16 | 103}, LocalPreference: ptr(uint32(200))}
	with := func(p netip.Prefix, a bgp.PathAttributes) bgp.Path { return bgp.Path{Prefix: p, Attributes: a} }

	apply(t, set, desired("10.0.0.1",
		peerTo("a", a, 65010, with(pfxPod, rackA), with(pfxPod6, rackA), plain(pfxSvc)),
		peerTo("b", b, 65020, with(pfxPod, rackB), with(pfxPod6, rackB)),
		peerTo("c", c, 65001, with(pfxPod, ibgp)),
	))
	for _, r := range []*gobgptest.Router{a, b, c} {
		r.WaitEstablished(t, local, sessionTimeout)
	}
	waitReceived(t, a, bgp.FamilyIPv4Unicast,
		route(pfxPod, rackA),
		route(pfxSvc, bgp.PathAttributes{}))
	waitReceived(t, a, bgp.FamilyIPv6Unicast, route(pfxPod6, rackA))
	waitReceived(t, b, bgp.FamilyIPv4Unicast, route(pfxPod, rackB))
	waitReceived(t, b, bgp.FamilyIPv6Unicast, route(pfxPod6, rackB))
	waitReceived(t, c, bgp.FamilyIPv4Unicast, route(pfxPod, ibgp))

	// A's attributes change (the IPv4 pod CIDR moves to another attribute set, the
	// IPv6 one stays); B stops getting the IPv4 pod CIDR, which A and C still get, so
	// it is withdrawn from B alone; C's local preference changes.
	rackA2 := bgp.PathAttributes{Communities: []uint32{65001<<16 | 101, 65001<<16 | 999}}
	ibgp2 := bgp.PathAttributes{LocalPreference: ptr(uint32(300))}
	apply(t, set, desired("10.0.0.1",
		peerTo("a", a, 65010, with(pfxPod, rackA2), with(pfxPod6, rackA), plain(pfxSvc)),
		peerTo("b", b, 65020, with(pfxPod6, rackB)),
		peerTo("c", c, 65001, with(pfxPod, ibgp2)),
	))
	waitReceived(t, a, bgp.FamilyIPv4Unicast, route(pfxPod, rackA2), route(pfxSvc, bgp.PathAttributes{}))
	waitReceived(t, a, bgp.FamilyIPv6Unicast, route(pfxPod6, rackA))
	waitReceived(t, b, bgp.FamilyIPv4Unicast)
	waitReceived(t, b, bgp.FamilyIPv6Unicast, route(pfxPod6, rackB))
	waitReceived(t, c, bgp.FamilyIPv4Unicast, route(pfxPod, ibgp2))

	for _, r := range []*gobgptest.Router{a, b, c} {
		if n := r.Drops(local); n != 0 {
			t.Errorf("attribute and export changes dropped the session with %s %d times", r.Addr, n)
		}
	}
}

func ptr[T any](v T) *T { return &v }
