package gobgp

import (
	"context"
	"net/netip"
	"reflect"
	"testing"
	"time"

	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/testing/gobgptest"
	"kbgp.io/kbgp/internal/testing/wait"
)

// TestAdjRIBIsWhatThePeerHas runs a speaker against a real GoBGP router on loopback:
// the Adj-RIB-Out, attributes included, is what the router received, and the
// Adj-RIB-In is what the router sent.
func TestAdjRIBIsWhatThePeerHas(t *testing.T) {
	ctx := context.Background()
	local := netip.MustParseAddr("127.0.0.1")
	up := gobgptest.Start(t, netip.MustParseAddr("127.0.0.32"), 65010)
	up.AddNeighbor(t, local, 65001)
	sent := netip.MustParsePrefix("10.244.7.0/24")
	up.Originate(t, sent)

	rt, err := Factory{}.NewRouter(ctx, bgp.InstanceKey{LocalASN: 65001}, bgp.Global{ASN: 65001, RouterID: netip.MustParseAddr("10.0.0.1")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Stop(ctx, false) })
	lp := uint32(150)
	export := []bgp.Path{
		{Prefix: netip.MustParsePrefix("198.51.100.10/32"), Attributes: bgp.PathAttributes{Communities: []uint32{65001<<16 | 100},
			LargeCommunities: []bgp.LargeCommunity{{GlobalAdmin: 65001, LocalData1: 1, LocalData2: 2}}}},
		{Prefix: netip.MustParsePrefix("10.244.1.0/24"), Attributes: bgp.PathAttributes{LocalPreference: &lp}},
	}
	p := bgp.Peer{Name: "r", Address: up.Addr, ASN: 65010, Port: up.Port, LocalAddress: local, Families: []bgp.Family{bgp.FamilyIPv4Unicast}}
	if err := rt.AddPeer(ctx, p, export); err != nil {
		t.Fatal(err)
	}
	up.WaitEstablished(t, local, 20*time.Second)
	wait.Eventually(t, 20*time.Second, "the router received both prefixes and the speaker the router's", func() bool {
		in, _ := rt.AdjRIB(ctx, up.Addr, bgp.AdjRIBIn)
		return len(up.Routes(t, bgp.FamilyIPv4Unicast)) == 2 && len(in) == 1
	})

	out, err := rt.AdjRIB(ctx, up.Addr, bgp.AdjRIBOut)
	if err != nil {
		t.Fatal(err)
	}
	received := up.Routes(t, bgp.FamilyIPv4Unicast)
	for i := range received {
		received[i].Neighbor = up.Addr // the router names the speaker, the speaker the router
	}
	if !reflect.DeepEqual(out, received) {
		t.Errorf("Adj-RIB-Out\n%+v\nthe router received\n%+v", out, received)
	}
	in, err := rt.AdjRIB(ctx, up.Addr, bgp.AdjRIBIn)
	if err != nil {
		t.Fatal(err)
	}
	if len(in) != 1 || in[0].Prefix != sent || in[0].NextHop != up.Addr || !reflect.DeepEqual(in[0].ASPath, []uint32{65010}) {
		t.Errorf("Adj-RIB-In %+v, want %s from %s with AS path 65010", in, sent, up.Addr)
	}
	if _, err := rt.AdjRIB(ctx, netip.MustParseAddr("127.0.0.99"), bgp.AdjRIBOut); err == nil {
		t.Error("Adj-RIB-Out of a peer the speaker does not have: no error")
	}
}

// TestAdjRIBOutOfAPeerThatIsDown: a peer whose session never came up has an empty
// Adj-RIB-Out although its export is in place (GoBGP sends nothing without a session),
// as docs/status.md says.
func TestAdjRIBOutOfAPeerThatIsDown(t *testing.T) {
	ctx := context.Background()
	rt, err := Factory{}.NewRouter(ctx, bgp.InstanceKey{LocalASN: 65001}, bgp.Global{ASN: 65001, RouterID: netip.MustParseAddr("10.0.0.1")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Stop(ctx, false) })
	down := netip.MustParseAddr("127.0.0.33") // nothing listens there
	export := []bgp.Path{{Prefix: netip.MustParsePrefix("198.51.100.10/32")}}
	if err := rt.AddPeer(ctx, bgp.Peer{Name: "down", Address: down, ASN: 65010, Port: 1, LocalAddress: netip.MustParseAddr("127.0.0.1"),
		Families: []bgp.Family{bgp.FamilyIPv4Unicast}}, export); err != nil {
		t.Fatal(err)
	}
	out, err := rt.AdjRIB(ctx, down, bgp.AdjRIBOut)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 0 {
		t.Errorf("Adj-RIB-Out of a peer that is down: %+v, want none", out)
	}
}
