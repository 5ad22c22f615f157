package routes

import (
	"log/slog"
	"net/netip"
	"testing"

	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/podnet"
)

// TestRouteState: each received route says whether it is in the kernel via its peer's
// next hop, and if not, why: refused by the policy, its default route rule or its
// cap, kept out by a route kbgp did not install, waiting for a retry, never passed on
// by the speaker, or from a peer (or family) that imports nothing.
func TestRouteState(t *testing.T) {
	k := newFakeKernel(nil)
	k.foreign[netip.MustParsePrefix("10.5.0.0/16")] = true
	p := New(k, nil, slog.New(slog.DiscardHandler), nil)
	p.retryFirst = 1 << 40 // no retry runs during the test
	noDefault := fabricImport(3)
	noDefault.Routes.AllowDefaultRoute = false
	p.Importing(rrA, bgp.FamilyIPv4Unicast, noDefault)
	// The cap of 3 keeps 10.1, 10.2 and 10.5 (the lowest accepted), not 10.6 or 10.7.
	p.Received([]bgp.PeerRoute{
		route(rrA, "0.0.0.0/0", node2, false),
		route(rrA, "10.1.0.0/16", node2, false),
		route(rrA, "10.5.0.0/16", node2, false),
		route(rrA, "10.6.0.0/16", node2, false),
		route(rrA, "10.7.0.0/16", node2, false),
		route(rrA, "172.16.0.0/16", node2, false),
	})
	k.failReplace = 1
	p.Received([]bgp.PeerRoute{route(rrA, "10.2.0.0/16", node2, false)})
	for _, tc := range []struct {
		peer      netip.Addr
		prefix    string
		installed bool
		reason    string
	}{
		{rrA, "10.1.0.0/16", true, ""},
		{rrA, "0.0.0.0/0", false, RejectDefaultRoute},
		{rrA, "172.16.0.0/16", false, RejectNotInPolicy},
		{rrA, "10.5.0.0/16", false, podnet.RejectForeignRoute},
		{rrA, "10.6.0.0/16", false, RejectOverMaxRoutes},
		{rrA, "10.7.0.0/16", false, RejectOverMaxRoutes},
		{rrA, "10.2.0.0/16", false, NotYetInstalled},
		{rrA, "10.9.0.0/16", false, NotPassedOn},
		{rrA, "2001:db8::/32", false, NotImported},
		{rrB, "10.1.0.0/16", false, NotImported},
	} {
		installed, reason := p.RouteState(tc.peer, netip.MustParsePrefix(tc.prefix))
		if installed != tc.installed || reason != tc.reason {
			t.Errorf("%s from %s: %v %q, want %v %q", tc.prefix, tc.peer, installed, reason, tc.installed, tc.reason)
		}
	}
	if got := p.Counts()[rrA]; got != (PeerCounts{Installed: 1, Rejected: 5}) {
		t.Errorf("counts %+v, want 1 installed (10.2.0.0/16 waits), 5 rejected", got)
	}
}
