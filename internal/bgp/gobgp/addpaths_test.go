package gobgp

import (
	"context"
	"maps"
	"net/netip"
	"slices"
	"testing"
	"time"

	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/testing/gobgptest"
	"kbgp.io/kbgp/internal/testing/wait"
)

// TestAddPathsSendFromAReflector runs a speaker as the route reflector of four real
// GoBGP routers (iBGP): two clients announce the same Service address, and the two
// others are configured for ADD-PATH send, one of them offering ADD-PATH receive. The
// speaker reports ADD-PATH negotiated with that one only; it receives both clients'
// paths for the address, the other one the best path alone.
func TestAddPathsSendFromAReflector(t *testing.T) {
	ctx := context.Background()
	local := netip.MustParseAddr("127.0.0.1")
	const asn = 65001
	vip := netip.MustParsePrefix("198.51.100.40/32")
	announcer1 := gobgptest.Start(t, netip.MustParseAddr("127.0.0.41"), asn)
	announcer2 := gobgptest.Start(t, netip.MustParseAddr("127.0.0.42"), asn)
	receiver := gobgptest.Start(t, netip.MustParseAddr("127.0.0.43"), asn)
	plain := gobgptest.Start(t, netip.MustParseAddr("127.0.0.44"), asn)
	for _, r := range []*gobgptest.Router{announcer1, announcer2, plain} {
		r.AddNeighbor(t, local, asn)
	}
	receiver.AddNeighbor(t, local, asn, gobgptest.WithAddPathsReceive())
	announcer1.Originate(t, vip)
	announcer2.Originate(t, vip)

	rt, err := Factory{}.NewRouter(ctx, bgp.InstanceKey{LocalASN: asn}, bgp.Global{ASN: asn, RouterID: netip.MustParseAddr("10.0.0.1")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Stop(ctx, false) })
	clusterID := netip.MustParseAddr("10.0.0.1")
	client := func(r *gobgptest.Router, addPaths uint8) bgp.Peer {
		p := bgp.Peer{Name: r.Addr.String(), Address: r.Addr, ASN: asn, Port: r.Port, LocalAddress: local,
			Families: []bgp.Family{bgp.FamilyIPv4Unicast}, RouteReflectorClient: true, RouteReflectorClusterID: clusterID}
		if addPaths > 0 {
			p.AddPathsSend = map[bgp.Family]uint8{bgp.FamilyIPv4Unicast: addPaths}
		}
		return p
	}
	for _, p := range []bgp.Peer{client(announcer1, 0), client(announcer2, 0), client(receiver, 8), client(plain, 8)} {
		if err := rt.AddPeer(ctx, p, nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range []*gobgptest.Router{announcer1, announcer2, receiver, plain} {
		r.WaitEstablished(t, local, 20*time.Second)
	}

	negotiated := map[netip.Addr]map[bgp.Family]bool{}
	wait.Eventually(t, 20*time.Second, "every session established in the speaker's status", func() bool {
		peers, err := rt.Peers(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range peers {
			if p.State != bgp.StateEstablished {
				return false
			}
			negotiated[p.Address] = p.AddPathsSend
		}
		return len(peers) == 4
	})
	for addr, want := range map[netip.Addr]map[bgp.Family]bool{
		receiver.Addr: {bgp.FamilyIPv4Unicast: true}, plain.Addr: nil, announcer1.Addr: nil,
	} {
		if got := negotiated[addr]; !maps.Equal(got, want) {
			t.Errorf("ADD-PATH send with %s: %v, want %v", addr, got, want)
		}
	}

	// nextHops are the next hops of the paths r holds for the address.
	nextHops := func(r *gobgptest.Router) []netip.Addr {
		var out []netip.Addr
		for _, rt := range r.Routes(t, bgp.FamilyIPv4Unicast) {
			if rt.Prefix == vip {
				out = append(out, rt.NextHop)
			}
		}
		slices.SortFunc(out, netip.Addr.Compare)
		return out
	}
	both := []netip.Addr{announcer1.Addr, announcer2.Addr}
	wait.Eventually(t, 20*time.Second, "the ADD-PATH receiver holds both announcers' paths", func() bool {
		return slices.Equal(nextHops(receiver), both)
	})
	wait.Eventually(t, 20*time.Second, "the plain client holds one path", func() bool {
		return len(nextHops(plain)) == 1
	})
	// Nothing more arrives at the plain client: it never gets the second path.
	time.Sleep(time.Second)
	if got := nextHops(plain); len(got) != 1 {
		t.Errorf("the client without ADD-PATH receive holds %v, want one path", got)
	}
}
