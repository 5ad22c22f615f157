package speakers

import (
	"context"
	"net/netip"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"kbgp.io/kbgp/internal/bgp"
)

// TestApplyExportsIssuesOnlyTheDifference is the hot path: per-peer export changes
// become one ApplyExports batch per speaker, holding only what differs from what each
// peer is sent, and no session resets.
func TestApplyExportsIssuesOnlyTheDifference(t *testing.T) {
	set, f := newFakeSet()
	ctx := context.Background()
	a, b := basePeer("a", addrA), basePeer("b", addrB)
	mustApply(t, set, desiredOf(global, exporting(a, path(pfxPod)), exporting(b, path(pfxPod))))
	r := f.Router(key)
	r.ExportBatches()
	svc2 := netip.MustParsePrefix("203.0.113.20/32")

	steps := []struct {
		name         string
		changes      bgp.ExportChanges
		wantA, wantB []bgp.Path
		wantBatches  [][]bgp.ExportChange
	}{
		{"a new Service for both peers, different attributes: one batch",
			bgp.ExportChanges{key: {{Peer: addrA, Set: []bgp.Path{path(svc2, 1)}}, {Peer: addrB, Set: []bgp.Path{path(svc2, 2)}}}},
			[]bgp.Path{path(pfxPod), path(svc2, 1)}, []bgp.Path{path(pfxPod), path(svc2, 2)},
			[][]bgp.ExportChange{{setTo(addrA, path(svc2, 1)), setTo(addrB, path(svc2, 2))}}},
		{"new attributes for one peer: the other keeps its own",
			bgp.ExportChanges{key: {{Peer: addrA, Set: []bgp.Path{path(svc2, 3)}}}},
			[]bgp.Path{path(pfxPod), path(svc2, 3)}, []bgp.Path{path(pfxPod), path(svc2, 2)},
			[][]bgp.ExportChange{{setTo(addrA, path(svc2, 3))}}},
		{"what a peer is already sent is not sent again",
			bgp.ExportChanges{key: {{Peer: addrA, Set: []bgp.Path{path(pfxPod)}}, {Peer: addrB, Remove: []netip.Prefix{netip.MustParsePrefix("198.51.100.0/24")}}}},
			[]bgp.Path{path(pfxPod), path(svc2, 3)}, []bgp.Path{path(pfxPod), path(svc2, 2)},
			nil},
		{"one peer stops exporting it: the other still gets it",
			bgp.ExportChanges{key: {{Peer: addrA, Remove: []netip.Prefix{svc2}}}},
			[]bgp.Path{path(pfxPod)}, []bgp.Path{path(pfxPod), path(svc2, 2)},
			[][]bgp.ExportChange{{removeFrom(addrA, svc2)}}},
		{"a change for a peer or speaker that is not running is skipped",
			bgp.ExportChanges{key: {{Peer: netip.MustParseAddr("10.9.9.9"), Set: []bgp.Path{path(svc2, 9)}}}, bgp.InstanceKey{LocalASN: 1}: {{Peer: addrA, Set: []bgp.Path{path(svc2, 9)}}}},
			[]bgp.Path{path(pfxPod)}, []bgp.Path{path(pfxPod), path(svc2, 2)},
			nil},
		{"two changes of one peer are one change",
			bgp.ExportChanges{key: {{Peer: addrB, Remove: []netip.Prefix{svc2}}, {Peer: addrB, Set: []bgp.Path{path(svc2, 4)}}}},
			[]bgp.Path{path(pfxPod)}, []bgp.Path{path(pfxPod), path(svc2, 4)},
			[][]bgp.ExportChange{{setTo(addrB, path(svc2, 4))}}},
		{"the last peer stops exporting it",
			bgp.ExportChanges{key: {{Peer: addrB, Remove: []netip.Prefix{svc2}}}},
			[]bgp.Path{path(pfxPod)}, []bgp.Path{path(pfxPod)},
			[][]bgp.ExportChange{{removeFrom(addrB, svc2)}}},
		{"exported to both again",
			bgp.ExportChanges{key: {{Peer: addrA, Set: []bgp.Path{path(svc2, 1)}}, {Peer: addrB, Set: []bgp.Path{path(svc2, 2)}}}},
			[]bgp.Path{path(pfxPod), path(svc2, 1)}, []bgp.Path{path(pfxPod), path(svc2, 2)},
			[][]bgp.ExportChange{{setTo(addrA, path(svc2, 1)), setTo(addrB, path(svc2, 2))}}},
		{"a Service both peers export is deleted: one batch",
			bgp.ExportChanges{key: {{Peer: addrA, Remove: []netip.Prefix{svc2}}, {Peer: addrB, Remove: []netip.Prefix{svc2}}}},
			[]bgp.Path{path(pfxPod)}, []bgp.Path{path(pfxPod)},
			[][]bgp.ExportChange{{removeFrom(addrA, svc2), removeFrom(addrB, svc2)}}},
	}
	for _, s := range steps {
		if err := set.ApplyExports(ctx, s.changes); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if diff := cmp.Diff(s.wantA, r.Advertised(addrA), routerOpts...); diff != "" {
			t.Errorf("%s: peer a (-want +got):\n%s", s.name, diff)
		}
		if diff := cmp.Diff(s.wantB, r.Advertised(addrB), routerOpts...); diff != "" {
			t.Errorf("%s: peer b (-want +got):\n%s", s.name, diff)
		}
		if diff := cmp.Diff(s.wantBatches, r.ExportBatches(), routerOpts...); diff != "" {
			t.Errorf("%s: ApplyExports batches (-want +got):\n%s", s.name, diff)
		}
	}
	if r.Sessions(addrA) != 1 || r.Sessions(addrB) != 1 {
		t.Errorf("export changes reset sessions: a=%d b=%d", r.Sessions(addrA), r.Sessions(addrB))
	}
	// The speaker set's books match the speaker: a full Apply of the same state is a no-op.
	mustApply(t, set, desiredOf(global, exporting(a, path(pfxPod)), exporting(b, path(pfxPod))))
	if got := r.ExportBatches(); len(got) != 0 {
		t.Errorf("a full Apply after ApplyExports changed exports: %v", got)
	}
}

func setTo(addr netip.Addr, paths ...bgp.Path) bgp.ExportChange {
	return bgp.ExportChange{Peer: addr, Set: paths}
}

func removeFrom(addr netip.Addr, prefixes ...netip.Prefix) bgp.ExportChange {
	return bgp.ExportChange{Peer: addr, Remove: prefixes}
}

// routerOpts compare what the router is sent and asked: netip values and empty slices.
var routerOpts = cmp.Options{
	cmp.Comparer(func(x, y netip.Prefix) bool { return x == y }),
	cmp.Comparer(func(x, y netip.Addr) bool { return x == y }),
	cmpopts.EquateEmpty(),
}

// TestALargeExportChangeGoesInBatches: a full Apply that sets 20,000 prefixes for one
// peer and 5,000 for another, and removes one from each, reaches the router in calls of
// at most exportBatch prefixes to set, every removal in the first, each peer once a
// call; afterwards both peers are sent exactly what was asked, and a full Apply of the
// same state changes nothing.
func TestALargeExportChangeGoesInBatches(t *testing.T) {
	set, f := newFakeSet()
	a, b := basePeer("a", addrA), basePeer("b", addrB)
	svc := netip.MustParsePrefix("203.0.113.20/32")
	mustApply(t, set, desiredOf(global, exporting(a, path(pfxPod), path(svc)), exporting(b, path(pfxPod), path(svc))))
	r := f.Router(key)
	r.ExportBatches()

	many := func(n int, second byte) []bgp.Path {
		out := []bgp.Path{path(pfxPod)}
		for i := range n {
			out = append(out, path(netip.PrefixFrom(netip.AddrFrom4([4]byte{10, second, byte(i >> 8), byte(i)}), 32)))
		}
		slices.SortFunc(out, comparePaths)
		return out
	}
	wantA, wantB := many(20_000, 128), many(5_000, 129)
	mustApply(t, set, desiredOf(global, exporting(a, wantA...), exporting(b, wantB...)))
	batches := r.ExportBatches()
	if want := (25_000 + exportBatch - 1) / exportBatch; len(batches) != want {
		t.Errorf("%d ApplyExports calls, want %d (25,000 prefixes in batches of %d)", len(batches), want, exportBatch)
	}
	for i, batch := range batches {
		sets, removes, peers := 0, 0, map[netip.Addr]bool{}
		for _, ch := range batch {
			sets, removes = sets+len(ch.Set), removes+len(ch.Remove)
			if peers[ch.Peer] {
				t.Errorf("call %d: peer %s changed twice", i, ch.Peer)
			}
			peers[ch.Peer] = true
		}
		if sets > exportBatch || (i == 0) != (removes == 2) {
			t.Errorf("call %d sets %d prefixes (at most %d) and removes %d", i, sets, exportBatch, removes)
		}
	}
	if diff := cmp.Diff(wantA, r.Advertised(addrA), routerOpts...); diff != "" {
		t.Errorf("peer a (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantB, r.Advertised(addrB), routerOpts...); diff != "" {
		t.Errorf("peer b (-want +got):\n%s", diff)
	}
	mustApply(t, set, desiredOf(global, exporting(a, wantA...), exporting(b, wantB...)))
	if got := r.ExportBatches(); len(got) != 0 {
		t.Errorf("a full Apply of the same state changed exports in %d calls", len(got))
	}
}
