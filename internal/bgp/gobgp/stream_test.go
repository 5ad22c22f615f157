package gobgp_test

import (
	"context"
	"net/netip"
	"testing"
	"time"

	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/bgp/gobgp"
	"kbgp.io/kbgp/internal/bgp/gobgp/gobgptest"
)

// TestTableIsStreamedEndOfRIBLast: a new session gets its table in UPDATEs that leave
// while the rest is still being computed (the patch "stream the table" of
// third_party/gobgp), and End-of-RIB only after the last prefix, so that a
// graceful-restart helper never flushes a stale route it is about to be sent. Without
// the patch GoBGP packs the whole table before sending and the router reads it in one
// UPDATE. 5,000 /32s fit in one extended message, which both ends negotiate.
func TestTableIsStreamedEndOfRIBLast(t *testing.T) {
	const n = 5000
	local, remote := netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("127.0.0.63")
	up := gobgptest.Start(t, remote, 65010)
	var arrivals []gobgp.Arrival
	got := make(chan gobgp.Arrival, 1024)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := up.Upstream.WatchArrivals(ctx, func(a gobgp.Arrival) { got <- a }); err != nil {
		t.Fatal(err)
	}
	up.AddNeighbor(t, local, 65001, gobgp.WithGracefulRestart(120*time.Second))

	r, err := gobgp.Factory{}.NewRouter(ctx, bgp.InstanceKey{LocalASN: 65001}, bgp.Global{ASN: 65001, RouterID: netip.MustParseAddr("10.0.0.1")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Stop(context.Background(), false) })
	export := make([]bgp.Path, n)
	a := netip.MustParseAddr("10.128.0.1")
	for i := range export {
		export[i], a = bgp.Path{Prefix: netip.PrefixFrom(a, 32)}, a.Next()
	}
	p := bgp.Peer{
		Name: "up", Address: remote, ASN: 65010, Port: up.Port, LocalAddress: local,
		Families:        []bgp.Family{bgp.FamilyIPv4Unicast},
		GracefulRestart: bgp.GracefulRestart{Enabled: true, RestartTime: 120 * time.Second},
	}
	if err := r.AddPeer(ctx, p, export); err != nil {
		t.Fatal(err)
	}

	prefixes, updates, firstUpdate := 0, 0, 0
	timeout := time.After(30 * time.Second)
	for done := false; !done; {
		select {
		case a := <-got:
			if a.Neighbor != local {
				continue
			}
			arrivals = append(arrivals, a)
			switch {
			case a.EndOfRIB:
				if prefixes != n {
					t.Fatalf("End-of-RIB after %d of %d prefixes; arrivals %+v", prefixes, n, arrivals)
				}
				done = true
			case a.Prefixes > 0:
				if updates == 0 {
					firstUpdate = a.Prefixes
				}
				updates++
				prefixes += a.Prefixes
			}
		case <-timeout:
			t.Fatalf("no End-of-RIB within 30 s: %d prefixes in %d UPDATEs", prefixes, updates)
		}
	}
	if updates < 2 || firstUpdate >= n {
		t.Fatalf("the table came in %d UPDATE(s), the first with %d of %d prefixes: want it streamed, the first UPDATE sent before the table was complete", updates, firstUpdate, n)
	}
	t.Logf("%d prefixes in %d UPDATEs, the first with %d, End-of-RIB last", n, updates, firstUpdate)
}
