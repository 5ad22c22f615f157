package component

import (
	"net/netip"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/bgp/gobgp/gobgptest"
)

var routerC = netip.MustParseAddr("127.0.0.5")

// waitReceived waits until the router has exactly want in family, attributes included,
// and shows the difference when it never does.
func waitReceived(t *testing.T, r *gobgptest.Peer, family string, want ...gobgptest.Route) {
	t.Helper()
	opts := cmp.Options{cmp.Comparer(func(a, b netip.Prefix) bool { return a == b }), cmpopts.EquateEmpty()}
	deadline := time.Now().Add(sessionTimeout)
	for {
		got := r.Routes(t, family)
		diff := cmp.Diff(want, got, opts)
		if diff == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s routes at %s after %s (-want +got):\n%s", family, r.Addr, sessionTimeout, diff)
		}
		time.Sleep(50 * time.Millisecond)
	}
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
	for _, r := range []*gobgptest.Peer{a, b, c} {
		r.WaitEstablished(t, local, sessionTimeout)
	}
	waitReceived(t, a, "ipv4",
		gobgptest.Route{Prefix: pfxPod, Communities: rackA.Communities, LargeCommunities: []string{"65001:1:101"}},
		gobgptest.Route{Prefix: pfxSvc})
	waitReceived(t, a, "ipv6", gobgptest.Route{Prefix: pfxPod6, Communities: rackA.Communities, LargeCommunities: []string{"65001:1:101"}})
	waitReceived(t, b, "ipv4", gobgptest.Route{Prefix: pfxPod, Communities: rackB.Communities})
	waitReceived(t, b, "ipv6", gobgptest.Route{Prefix: pfxPod6, Communities: rackB.Communities})
	waitReceived(t, c, "ipv4", gobgptest.Route{Prefix: pfxPod, Communities: ibgp.Communities, LocalPref: 200})

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
	waitReceived(t, a, "ipv4", gobgptest.Route{Prefix: pfxPod, Communities: rackA2.Communities}, gobgptest.Route{Prefix: pfxSvc})
	waitReceived(t, a, "ipv6", gobgptest.Route{Prefix: pfxPod6, Communities: rackA.Communities, LargeCommunities: []string{"65001:1:101"}})
	waitReceived(t, b, "ipv4")
	waitReceived(t, b, "ipv6", gobgptest.Route{Prefix: pfxPod6, Communities: rackB.Communities})
	waitReceived(t, c, "ipv4", gobgptest.Route{Prefix: pfxPod, LocalPref: 300})

	for _, r := range []*gobgptest.Peer{a, b, c} {
		if n := r.Drops(local); n != 0 {
			t.Errorf("attribute and export changes dropped the session with %s %d times", r.Addr, n)
		}
	}
}

func ptr[T any](v T) *T { return &v }
