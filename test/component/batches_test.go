package component

import (
	"net/netip"
	"slices"
	"testing"

	"kbgp.io/kbgp/internal/bgp"
)

// TestLargeExportChangesReachEachPeerWhole: with both sessions up, the peers' exports
// grow by more than the speakers' batch of 8,192 prefixes (20,000 routes to A, 5,000
// to B), then shrink and grow again across batches (A loses 1,000, B gains 9,000 and a
// community on half of its routes): the real GoBGP routers hold exactly their sets
// after each step, and no session resets.
func TestLargeExportChangesReachEachPeerWhole(t *testing.T) {
	a, b := routersAB(t)
	set := newTestSpeakers(t)
	apply(t, set, desired("10.0.0.1", peerTo("a", a, 65010, plain(pfxPod)), peerTo("b", b, 65020, plain(pfxPod))))
	a.WaitEstablished(t, local, sessionTimeout)
	b.WaitEstablished(t, local, sessionTimeout)
	waitRoutes(t, a, bgp.FamilyIPv4Unicast, pfxPod)

	hosts := func(second byte, from, to int, attrs bgp.PathAttributes) []bgp.Path {
		var out []bgp.Path
		for i := from; i < to; i++ {
			out = append(out, bgp.Path{Prefix: netip.PrefixFrom(netip.AddrFrom4([4]byte{10, second, byte(i >> 8), byte(i)}), 32), Attributes: attrs})
		}
		return out
	}
	tagged := bgp.PathAttributes{Communities: []uint32{65001<<16 | 7}}
	steps := []struct {
		name string
		toA  []bgp.Path
		toB  []bgp.Path
	}{
		{"grow", hosts(128, 0, 20_000, bgp.PathAttributes{}), hosts(129, 0, 5_000, bgp.PathAttributes{})},
		{"shrink, grow and move", hosts(128, 1_000, 20_000, bgp.PathAttributes{}),
			append(hosts(129, 0, 7_000, tagged), hosts(129, 7_000, 14_000, bgp.PathAttributes{})...)},
	}
	for _, s := range steps {
		apply(t, set, desired("10.0.0.1", peerTo("a", a, 65010, append(s.toA, plain(pfxPod))...), peerTo("b", b, 65020, append(s.toB, plain(pfxPod))...)))
		waitRoutes(t, a, bgp.FamilyIPv4Unicast, sortedPrefixes(s.toA, pfxPod)...)
		waitRoutes(t, b, bgp.FamilyIPv4Unicast, sortedPrefixes(s.toB, pfxPod)...)
	}
	waitReceived(t, b, bgp.FamilyIPv4Unicast, receivedOf(append(hosts(129, 0, 7_000, tagged), hosts(129, 7_000, 14_000, bgp.PathAttributes{})...), plain(pfxPod))...)
	if a.Drops(local)+b.Drops(local) != 0 {
		t.Errorf("export changes reset sessions: drops A=%d B=%d", a.Drops(local), b.Drops(local))
	}
}

// sortedPrefixes are the prefixes of paths and of more, sorted as a router lists them.
func sortedPrefixes(paths []bgp.Path, more ...netip.Prefix) []netip.Prefix {
	out := slices.Clone(more)
	for _, p := range paths {
		out = append(out, p.Prefix)
	}
	slices.SortFunc(out, bgp.ComparePrefix)
	return out
}

// receivedOf are the routes a router receives for paths and more, sorted.
func receivedOf(paths []bgp.Path, more ...bgp.Path) []bgp.ReceivedRoute {
	var out []bgp.ReceivedRoute
	for _, p := range append(paths, more...) {
		out = append(out, route(p.Prefix, p.Attributes))
	}
	slices.SortFunc(out, func(x, y bgp.ReceivedRoute) int { return bgp.ComparePrefix(x.Prefix, y.Prefix) })
	return out
}
