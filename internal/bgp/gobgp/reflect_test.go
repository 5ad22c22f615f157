package gobgp_test

import (
	"context"
	"net/netip"
	"testing"
	"time"

	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/bgp/gobgp"
	"kbgp.io/kbgp/internal/testing/gobgptest"
	"kbgp.io/kbgp/internal/testing/wait"
)

// TestReflectorChangesClientFlagInPlace: a speaker reflecting for two iBGP peers (the
// cluster ID set on both) sends the non-client's route to the client, and not to a
// non-client (RFC 4456). Making the client a non-client and back applies to the running
// session: the route is withdrawn and sent again, with no session reset. Without GoBGP
// patch 0007 the client flag stays what it was when the peer was added.
func TestReflectorChangesClientFlagInPlace(t *testing.T) {
	local := netip.MustParseAddr("127.0.0.1")
	a, b := gobgptest.Start(t, netip.MustParseAddr("127.0.0.21"), 65001), gobgptest.Start(t, netip.MustParseAddr("127.0.0.22"), 65001)
	a.AddNeighbor(t, local, 65001)
	b.AddNeighbor(t, local, 65001)
	prefix := netip.MustParsePrefix("198.51.100.0/24")
	a.Originate(t, prefix)

	ctx := context.Background()
	r, err := gobgp.Factory{}.NewRouter(ctx, bgp.InstanceKey{LocalASN: 65001}, bgp.Global{ASN: 65001, RouterID: netip.MustParseAddr("10.0.0.1")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Stop(ctx, false) })
	cluster := netip.MustParseAddr("10.0.0.9")
	peer := func(name string, to *gobgptest.Router, client bool) bgp.Peer {
		return bgp.Peer{Name: name, Address: to.Addr, ASN: 65001, Port: to.Port, LocalAddress: local,
			Timers: bgp.Timers{ConnectRetry: time.Second}, Families: []bgp.Family{bgp.FamilyIPv4Unicast},
			RouteReflectorClient: client, RouteReflectorClusterID: cluster}
	}
	if err := r.AddPeer(ctx, peer("a", a, false), nil); err != nil {
		t.Fatal(err)
	}
	if err := r.AddPeer(ctx, peer("b", b, true), nil); err != nil {
		t.Fatal(err)
	}
	a.WaitEstablished(t, local, 20*time.Second)
	b.WaitEstablished(t, local, 20*time.Second)
	hasRoute := func(want bool) func() bool {
		return func() bool {
			routes := b.Routes(t, bgp.FamilyIPv4Unicast)
			return want == (len(routes) == 1 && routes[0].Prefix == prefix)
		}
	}
	wait.Eventually(t, 20*time.Second, "the non-client's route reflected to the client", hasRoute(true))

	if err := r.UpdatePeer(ctx, peer("b", b, false)); err != nil {
		t.Fatal(err)
	}
	wait.Eventually(t, 20*time.Second, "the route withdrawn from b, now a non-client", hasRoute(false))
	if err := r.UpdatePeer(ctx, peer("b", b, true)); err != nil {
		t.Fatal(err)
	}
	wait.Eventually(t, 20*time.Second, "the route sent to b, a client again", hasRoute(true))
	if d := b.Drops(local); d != 0 {
		t.Fatalf("b's session was reset %d times, want none", d)
	}
	if d := a.Drops(local); d != 0 {
		t.Fatalf("a's session was reset %d times, want none", d)
	}
}
