package component

import (
	"context"
	"net/netip"
	"testing"

	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/testing/gobgptest"
)

// TestServiceEventsReachEachPeer runs the hot path (ApplyExports) against real GoBGP
// routers: a prefix new to two peers with different attributes, an attribute change for
// one of them, the prefix leaving one peer while the other still gets it, then the
// last; and a peer added afterwards gets what is already originated and what is new.
func TestServiceEventsReachEachPeer(t *testing.T) {
	a, b, c := startRouter(t, routerA, 65010), startRouter(t, routerB, 65020), startRouter(t, routerC, 65030)
	set := newTestSpeakers(t)
	peerA, peerB := peerTo("a", a, 65010, plain(pfxPod)), peerTo("b", b, 65020, plain(pfxPod))
	apply(t, set, desired("10.0.0.1", peerA, peerB))
	a.WaitEstablished(t, local, sessionTimeout)
	b.WaitEstablished(t, local, sessionTimeout)
	pod := route(pfxPod, bgp.PathAttributes{})
	waitReceived(t, a, bgp.FamilyIPv4Unicast, pod)
	waitReceived(t, b, bgp.FamilyIPv4Unicast, pod)

	c1, c2, c3 := []uint32{65001<<16 | 1}, []uint32{65001<<16 | 2}, []uint32{65001<<16 | 3}
	svc := func(cs []uint32) bgp.Path {
		return bgp.Path{Prefix: pfxSvc, Attributes: bgp.PathAttributes{Communities: cs}}
	}
	steps := []struct {
		name         string
		changes      bgp.ExportChanges
		wantA, wantB []bgp.ReceivedRoute
	}{
		{"new to both, with different attributes",
			bgp.ExportChanges{key: {{Peer: a.Addr, Set: []bgp.Path{svc(c1)}}, {Peer: b.Addr, Set: []bgp.Path{svc(c2)}}}},
			[]bgp.ReceivedRoute{pod, route(pfxSvc, svc(c1).Attributes)}, []bgp.ReceivedRoute{pod, route(pfxSvc, svc(c2).Attributes)}},
		{"new attributes for a alone",
			bgp.ExportChanges{key: {{Peer: a.Addr, Set: []bgp.Path{svc(c3)}}}},
			[]bgp.ReceivedRoute{pod, route(pfxSvc, svc(c3).Attributes)}, []bgp.ReceivedRoute{pod, route(pfxSvc, svc(c2).Attributes)}},
		{"a stops getting it, b still does",
			bgp.ExportChanges{key: {{Peer: a.Addr, Remove: []netip.Prefix{pfxSvc}}}},
			[]bgp.ReceivedRoute{pod}, []bgp.ReceivedRoute{pod, route(pfxSvc, svc(c2).Attributes)}},
		{"b stops getting it too",
			bgp.ExportChanges{key: {{Peer: b.Addr, Remove: []netip.Prefix{pfxSvc}}}},
			[]bgp.ReceivedRoute{pod}, []bgp.ReceivedRoute{pod}},
		{"both get it again",
			bgp.ExportChanges{key: {{Peer: a.Addr, Set: []bgp.Path{svc(c1)}}, {Peer: b.Addr, Set: []bgp.Path{svc(c1)}}}},
			[]bgp.ReceivedRoute{pod, route(pfxSvc, svc(c1).Attributes)}, []bgp.ReceivedRoute{pod, route(pfxSvc, svc(c1).Attributes)}},
	}
	for _, s := range steps {
		if err := set.ApplyExports(context.Background(), s.changes); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		t.Log(s.name)
		waitReceived(t, a, bgp.FamilyIPv4Unicast, s.wantA...)
		waitReceived(t, b, bgp.FamilyIPv4Unicast, s.wantB...)
	}

	// A new peer gets the originated prefixes it exports and one nobody exported yet.
	peerA.Export[pfxSvc] = svc(c1).Attributes
	peerB.Export[pfxSvc] = svc(c1).Attributes
	apply(t, set, desired("10.0.0.1", peerA, peerB, peerTo("c", c, 65030, svc(c2), plain(pfxPod6))))
	c.WaitEstablished(t, local, sessionTimeout)
	waitReceived(t, c, bgp.FamilyIPv4Unicast, route(pfxSvc, svc(c2).Attributes))
	waitReceived(t, c, bgp.FamilyIPv6Unicast, route(pfxPod6, bgp.PathAttributes{}))
	waitReceived(t, a, bgp.FamilyIPv6Unicast)
	for _, r := range []*gobgptest.Router{a, b, c} {
		if n := r.Drops(local); n != 0 {
			t.Errorf("export changes dropped the session with %s %d times", r.Addr, n)
		}
	}
}
