package gobgp_test

import (
	"context"
	"net/netip"
	"strings"
	"testing"
	"time"

	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/bgp/gobgp"
	"kbgp.io/kbgp/internal/testing/gobgptest"
	"kbgp.io/kbgp/internal/testing/wait"
)

// TestReceivedRoutesAreCountedButNeverImported runs the adapter against a real GoBGP
// speaker on loopback that announces a prefix: the speaker under test counts it as
// received, imports none of it, and still sends its own path.
func TestReceivedRoutesAreCountedButNeverImported(t *testing.T) {
	local, remote := netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("127.0.0.4")
	peer := gobgptest.Start(t, remote, 65010)
	peer.AddNeighbor(t, local, 65001)
	peer.Originate(t, netip.MustParsePrefix("198.51.100.0/24"))

	ctx := context.Background()
	r, err := gobgp.Factory{}.NewRouter(ctx, bgp.InstanceKey{LocalASN: 65001}, bgp.Global{ASN: 65001, RouterID: netip.MustParseAddr("10.0.0.1")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Stop(ctx, false) })
	own := netip.MustParsePrefix("10.244.1.0/24")
	p := bgp.Peer{Name: "r", Address: remote, ASN: 65010, Port: peer.Port, LocalAddress: local, Families: []bgp.Family{bgp.FamilyIPv4Unicast}}
	if err := r.AddPeer(ctx, p, []bgp.Path{{Prefix: own}}); err != nil {
		t.Fatal(err)
	}
	peer.WaitEstablished(t, local, 20*time.Second)
	wait.Eventually(t, 20*time.Second, "own path at the peer", func() bool {
		routes := peer.Routes(t, bgp.FamilyIPv4Unicast)
		return len(routes) == 1 && routes[0].Prefix == own
	})

	var st bgp.PeerStatus
	wait.Eventually(t, 20*time.Second, "received count", func() bool {
		sts, err := r.Peers(ctx)
		if err != nil || len(sts) != 1 {
			t.Fatalf("peers = %v, %v", sts, err)
		}
		st = sts[0]
		return st.Received() == 1
	})
	if st.ReceivedByFamily[bgp.FamilyIPv4Unicast] != 1 || st.ReceivedByFamily[bgp.FamilyIPv6Unicast] != 0 {
		t.Fatalf("received by family = %v, want one IPv4 prefix", st.ReceivedByFamily)
	}
	if st.State != bgp.StateEstablished || st.RemoteRouterID != remote {
		t.Fatalf("status = %+v, want Established with remote ID %s", st, remote)
	}
	if rib := gobgp.LocalRIB(t, r); len(rib) != 1 || rib[0] != own {
		t.Fatalf("local RIB = %v, want only the own path %s: received routes must not be imported", rib, own)
	}
}

// TestSessionDropsAreCounted: when the router resets the session, the adapter counts the
// drop and keeps the NOTIFICATION as the last down reason, which PeerDown events report.
func TestSessionDropsAreCounted(t *testing.T) {
	local, remote := netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("127.0.0.9")
	peer := gobgptest.Start(t, remote, 65010)
	peer.AddNeighbor(t, local, 65001)
	ctx := context.Background()
	r, err := gobgp.Factory{}.NewRouter(ctx, bgp.InstanceKey{LocalASN: 65001}, bgp.Global{ASN: 65001, RouterID: netip.MustParseAddr("10.0.0.1")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Stop(ctx, false) })
	p := bgp.Peer{Name: "r", Address: remote, ASN: 65010, Port: peer.Port, LocalAddress: local,
		Timers: bgp.Timers{ConnectRetry: time.Second}, Families: []bgp.Family{bgp.FamilyIPv4Unicast}}
	if err := r.AddPeer(ctx, p, nil); err != nil {
		t.Fatal(err)
	}
	peer.WaitEstablished(t, local, 20*time.Second)
	status := func() bgp.PeerStatus {
		sts, err := r.Peers(ctx)
		if err != nil || len(sts) != 1 {
			t.Fatalf("peers = %v, %v", sts, err)
		}
		return sts[0]
	}
	wait.Eventually(t, 20*time.Second, "Established at the adapter", func() bool { return status().State == bgp.StateEstablished })
	if d := status().Drops; d != 0 {
		t.Fatalf("drops before any reset = %d", d)
	}
	peer.Reset(t, local)
	var st bgp.PeerStatus
	wait.Eventually(t, 20*time.Second, "the drop counted", func() bool { st = status(); return st.Drops == 1 })
	if !strings.Contains(st.LastDownReason, "cease") {
		t.Fatalf("last down reason %q, want the Cease NOTIFICATION", st.LastDownReason)
	}
}
