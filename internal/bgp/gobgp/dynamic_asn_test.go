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

// TestDynamicASNTakesOnlyItsKind: a peer without an ASN but with a DynamicASN comes up
// with a router of that kind and reports the ASN it learned; of the other kind, the
// router's OPEN is refused and the session never comes up.
func TestDynamicASNTakesOnlyItsKind(t *testing.T) {
	for _, tc := range []struct {
		name     string
		kind     bgp.ASNKind
		routerAS uint32
		up       bool
	}{
		{"external takes an external router", bgp.ASNExternal, 65010, true},
		{"internal refuses an external router", bgp.ASNInternal, 65010, false},
		{"internal takes an internal router", bgp.ASNInternal, 65001, true},
		{"external refuses an internal router", bgp.ASNExternal, 65001, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			local, remote := netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("127.0.0.11")
			router := gobgptest.Start(t, remote, tc.routerAS)
			router.AddNeighbor(t, local, 65001)
			ctx := context.Background()
			r, err := gobgp.Factory{}.NewRouter(ctx, bgp.InstanceKey{LocalASN: 65001}, bgp.Global{ASN: 65001, RouterID: netip.MustParseAddr("10.0.0.1")}, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = r.Stop(ctx, false) })
			p := bgp.Peer{Name: "r", Address: remote, DynamicASN: tc.kind, Port: router.Port, LocalAddress: local,
				Timers: bgp.Timers{ConnectRetry: time.Second}, Families: []bgp.Family{bgp.FamilyIPv4Unicast}}
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
			if tc.up {
				wait.Eventually(t, 20*time.Second, "Established", func() bool { return status().State == bgp.StateEstablished })
				if st := status(); st.RemoteASN != tc.routerAS {
					t.Fatalf("remote ASN %d, want the router's %d", st.RemoteASN, tc.routerAS)
				}
				return
			}
			// The router dials and is refused, again and again: several connect
			// retries without ever reaching Established.
			for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
				if st := status(); st.State == bgp.StateEstablished {
					t.Fatalf("Established with ASN %d, want %s only", st.RemoteASN, tc.kind)
				}
			}
		})
	}
}
