package gobgp_test

import (
	"context"
	"net/netip"
	"testing"
	"time"

	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/bgp/gobgp"
	"kbgp.io/kbgp/internal/testing/gobgptest"
)

// The tests of this file show how the patches of third_party/gobgp shape the UPDATEs
// a peer reads; each fails without its patch.

// updatesLab is a kbgp speaker exporting to a plain GoBGP router on loopback that
// reports everything it reads from the speaker, in order.
type updatesLab struct {
	router bgp.Router
	peer   netip.Addr
	local  netip.Addr
	got    chan gobgptest.Arrival
}

func newUpdatesLab(t *testing.T, remote netip.Addr, export []bgp.Path) *updatesLab {
	t.Helper()
	local := netip.MustParseAddr("127.0.0.1")
	up := gobgptest.Start(t, remote, 65010)
	l := &updatesLab{peer: remote, local: local, got: make(chan gobgptest.Arrival, 1<<12)}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if err := up.Upstream.WatchArrivals(ctx, func(a gobgptest.Arrival) {
		if a.Neighbor == local {
			l.got <- a
		}
	}); err != nil {
		t.Fatal(err)
	}
	up.AddNeighbor(t, local, 65001, gobgptest.WithGracefulRestart(120*time.Second))
	r, err := gobgp.Factory{}.NewRouter(ctx, bgp.InstanceKey{LocalASN: 65001}, bgp.Global{ASN: 65001, RouterID: netip.MustParseAddr("10.0.0.1")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Stop(context.Background(), false) })
	l.router = r
	p := bgp.Peer{
		Name: "up", Address: remote, ASN: 65010, Port: up.Port, LocalAddress: local,
		Families:        []bgp.Family{bgp.FamilyIPv4Unicast},
		GracefulRestart: bgp.GracefulRestart{Enabled: true, RestartTime: 120 * time.Second},
	}
	if err := r.AddPeer(ctx, p, export); err != nil {
		t.Fatal(err)
	}
	return l
}

// next returns the next UPDATE or End-of-RIB the router read from the speaker.
func (l *updatesLab) next(t *testing.T) gobgptest.Arrival {
	t.Helper()
	for {
		select {
		case a := <-l.got:
			if !a.Established {
				return a
			}
		case <-time.After(30 * time.Second):
			t.Fatal("nothing from the speaker within 30 s")
		}
	}
}

// hostRoutes is n /32s from first on.
func hostRoutes(first string, n int) []bgp.Path {
	out := make([]bgp.Path, n)
	a := netip.MustParseAddr(first)
	for i := range out {
		out[i], a = bgp.Path{Prefix: netip.PrefixFrom(a, 32)}, a.Next()
	}
	return out
}

// TestTableIsStreamedEndOfRIBLast: a new session gets its table in UPDATEs that leave
// while the rest is still being computed (patch "stream the table"), and End-of-RIB
// only after the last prefix, so that a graceful-restart helper never flushes a stale
// route it is about to be sent. Without the patch GoBGP packs the whole table before
// sending and the router reads it in one UPDATE: 5,000 /32s fit in one extended
// message, which both ends negotiate.
func TestTableIsStreamedEndOfRIBLast(t *testing.T) {
	const n = 5000
	l := newUpdatesLab(t, netip.MustParseAddr("127.0.0.63"), hostRoutes("10.128.0.1", n))
	prefixes, updates, firstUpdate := 0, 0, 0
	for a := l.next(t); !a.EndOfRIB; a = l.next(t) {
		if updates == 0 {
			firstUpdate = a.Prefixes
		}
		updates++
		prefixes += a.Prefixes
	}
	if prefixes != n {
		t.Fatalf("End-of-RIB after %d of %d prefixes", prefixes, n)
	}
	if updates < 2 || firstUpdate >= n {
		t.Fatalf("the table came in %d UPDATE(s), the first with %d of %d prefixes: want it streamed, the first UPDATE sent before the table was complete", updates, firstUpdate, n)
	}
	t.Logf("%d prefixes in %d UPDATEs, the first with %d, End-of-RIB last", n, updates, firstUpdate)
}

// TestBurstOfChangesIsPacked: 100 changes of one prefix each, applied 2 ms apart
// (500 a second), reach the router in far fewer UPDATEs than changes (patch "pace
// updates": at most one round of UPDATEs per 20 to 80 ms). Without the patch each
// change leaves in its own UPDATE as soon as it is applied.
func TestBurstOfChangesIsPacked(t *testing.T) {
	const changes = 100
	l := newUpdatesLab(t, netip.MustParseAddr("127.0.0.64"), nil)
	if a := l.next(t); !a.EndOfRIB {
		t.Fatalf("first from the speaker: %+v, want the End-of-RIB of an empty table", a)
	}
	ctx := context.Background()
	go func() {
		for _, p := range hostRoutes("10.129.0.1", changes) {
			if err := l.router.ApplyExports(ctx, []bgp.ExportChange{{Peer: l.peer, Set: []bgp.Path{p}}}); err != nil {
				t.Error(err)
				return
			}
			time.Sleep(2 * time.Millisecond)
		}
	}()
	prefixes, updates := 0, 0
	for prefixes < changes {
		prefixes += l.next(t).Prefixes
		updates++
	}
	if updates > changes/4 {
		t.Fatalf("%d changes 2 ms apart came in %d UPDATEs: want them packed, at most %d", changes, updates, changes/4)
	}
	t.Logf("%d changes 2 ms apart came in %d UPDATEs", changes, updates)
}
