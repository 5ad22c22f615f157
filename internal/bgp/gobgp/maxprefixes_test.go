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

// TestHeldDownPeerIsRetried runs the adapter against a real GoBGP router that sends
// more routes than the peer's maxPrefixes: the peer is held down, retried on its own
// after the hold-down and held down again while it still sends too many; once the
// router sends fewer, the next retry brings the session back ("until the count drops").
func TestHeldDownPeerIsRetried(t *testing.T) {
	gobgp.ShortenHoldDown(t, time.Second, 2*time.Second)
	local, remote := netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("127.0.0.12")
	ctx := context.Background()
	upstream := func(routes int, port uint16) *gobgptest.Router {
		u := &gobgptest.Router{Addr: remote, Port: port}
		if port == 0 {
			u = gobgptest.Start(t, remote, 65010)
		} else {
			up, err := gobgptest.StartUpstream(ctx, gobgptest.UpstreamConfig{ASN: 65010, RouterID: remote, Address: remote, Port: port})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(up.Stop)
			u.Upstream = up
		}
		u.AddNeighbor(t, local, 65001)
		for i := range routes {
			u.Originate(t, netip.PrefixFrom(netip.AddrFrom4([4]byte{198, 18, byte(i), 0}), 24))
		}
		return u
	}
	big := upstream(5, 0)

	r, err := gobgp.Factory{}.NewRouter(ctx, bgp.InstanceKey{LocalASN: 65001}, bgp.Global{ASN: 65001, RouterID: netip.MustParseAddr("10.0.0.1")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Stop(ctx, false) })
	p := bgp.Peer{Name: "r", Address: remote, ASN: 65010, Port: big.Port, LocalAddress: local, Timers: bgp.Timers{ConnectRetry: time.Second},
		Families: []bgp.Family{bgp.FamilyIPv4Unicast}, MaxPrefixes: map[bgp.Family]uint32{bgp.FamilyIPv4Unicast: 3}}
	if err := r.AddPeer(ctx, p, nil); err != nil {
		t.Fatal(err)
	}
	status := func() bgp.PeerStatus {
		sts, err := r.Peers(ctx)
		if err != nil || len(sts) != 1 {
			t.Fatalf("peers = %v, %v", sts, err)
		}
		return sts[0]
	}
	var first string
	wait.Eventually(t, 20*time.Second, "held down", func() bool {
		st := status()
		first = st.HeldDownDetail
		return st.HeldDown == bgp.HeldDownMaxPrefixes && st.State != bgp.StateEstablished
	})
	// GoBGP keeps the peer down for good; the retry lets it in, and it exceeds again.
	wait.Eventually(t, 30*time.Second, "retried and held down again", func() bool {
		st := status()
		return st.HeldDown == bgp.HeldDownMaxPrefixes && st.HeldDownDetail != first
	})
	wait.Eventually(t, 5*time.Second, "the router saw a session end per hold-down", func() bool { return big.Drops(local) >= 2 })

	big.Upstream.Stop()
	small := upstream(2, big.Port)
	wait.Eventually(t, 30*time.Second, "back once the router sends fewer routes", func() bool {
		st := status()
		return st.State == bgp.StateEstablished && st.HeldDown == "" && st.Received() == 2
	})
	small.WaitEstablished(t, local, 5*time.Second)
}
