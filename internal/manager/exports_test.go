package manager

import (
	"context"
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"kbgp.io/kbgp/internal/bgp"
)

// TestApplyExportsIssuesOnlyTheDifference is the hot path: per-peer export changes
// become one batch of originations and one of withdrawals, with only the changed
// prefixes, and no session resets.
func TestApplyExportsIssuesOnlyTheDifference(t *testing.T) {
	m, f := newFakeManager()
	ctx := context.Background()
	a, b := basePeer("a", addrA), basePeer("b", addrB)
	mustApply(t, m, desiredOf(global, exporting(a, path(pfxPod)), exporting(b, path(pfxPod))))
	r := f.Router(key)
	r.PathCalls()
	svc2 := netip.MustParsePrefix("203.0.113.20/32")
	prefixesEqual := cmp.Comparer(func(x, y netip.Prefix) bool { return x == y })

	steps := []struct {
		name                 string
		changes              []bgp.ExportChange
		wantA, wantB         []bgp.Path
		wantAdded, wantDeled [][]netip.Prefix
	}{
		{"a new Service for both peers, different attributes: one AddPaths with it alone",
			[]bgp.ExportChange{{Instance: key, Peer: "a", Set: []bgp.Path{path(svc2, 1)}}, {Instance: key, Peer: "b", Set: []bgp.Path{path(svc2, 2)}}},
			[]bgp.Path{path(pfxPod), path(svc2, 1)}, []bgp.Path{path(pfxPod), path(svc2, 2)},
			[][]netip.Prefix{{svc2}}, nil},
		{"new attributes for one peer: re-originated, the other keeps its own",
			[]bgp.ExportChange{{Instance: key, Peer: "a", Set: []bgp.Path{path(svc2, 3)}}},
			[]bgp.Path{path(pfxPod), path(svc2, 3)}, []bgp.Path{path(pfxPod), path(svc2, 2)},
			[][]netip.Prefix{{svc2}}, nil},
		{"one peer stops exporting it: withdrawn from it, still originated for the other",
			[]bgp.ExportChange{{Instance: key, Peer: "a", Remove: []netip.Prefix{svc2}}},
			[]bgp.Path{path(pfxPod)}, []bgp.Path{path(pfxPod), path(svc2, 2)},
			nil, nil},
		{"a change for a peer that is not running is skipped",
			[]bgp.ExportChange{{Instance: key, Peer: "ghost", Set: []bgp.Path{path(svc2, 9)}}, {Instance: bgp.InstanceKey{LocalASN: 1}, Peer: "a"}},
			[]bgp.Path{path(pfxPod)}, []bgp.Path{path(pfxPod), path(svc2, 2)},
			nil, nil},
		{"the last peer stops exporting it: one DeletePaths with it alone",
			[]bgp.ExportChange{{Instance: key, Peer: "b", Remove: []netip.Prefix{svc2}}},
			[]bgp.Path{path(pfxPod)}, []bgp.Path{path(pfxPod)},
			nil, [][]netip.Prefix{{svc2}}},
		{"exported to both again",
			[]bgp.ExportChange{{Instance: key, Peer: "a", Set: []bgp.Path{path(svc2, 1)}}, {Instance: key, Peer: "b", Set: []bgp.Path{path(svc2, 2)}}},
			[]bgp.Path{path(pfxPod), path(svc2, 1)}, []bgp.Path{path(pfxPod), path(svc2, 2)},
			[][]netip.Prefix{{svc2}}, nil},
		{"a Service both peers export is deleted: withdrawn in one DeletePaths",
			[]bgp.ExportChange{{Instance: key, Peer: "a", Remove: []netip.Prefix{svc2}}, {Instance: key, Peer: "b", Remove: []netip.Prefix{svc2}}},
			[]bgp.Path{path(pfxPod)}, []bgp.Path{path(pfxPod)},
			nil, [][]netip.Prefix{{svc2}}},
	}
	for _, s := range steps {
		if err := m.ApplyExports(ctx, s.changes); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		opts := []cmp.Option{prefixesEqual, cmpopts.EquateEmpty()}
		if diff := cmp.Diff(s.wantA, r.Advertised(addrA), opts...); diff != "" {
			t.Errorf("%s: peer a (-want +got):\n%s", s.name, diff)
		}
		if diff := cmp.Diff(s.wantB, r.Advertised(addrB), opts...); diff != "" {
			t.Errorf("%s: peer b (-want +got):\n%s", s.name, diff)
		}
		added, deleted := r.PathCalls()
		if diff := cmp.Diff(s.wantAdded, added, opts...); diff != "" {
			t.Errorf("%s: AddPaths calls (-want +got):\n%s", s.name, diff)
		}
		if diff := cmp.Diff(s.wantDeled, deleted, opts...); diff != "" {
			t.Errorf("%s: DeletePaths calls (-want +got):\n%s", s.name, diff)
		}
	}
	if r.Sessions(addrA) != 1 || r.Sessions(addrB) != 1 {
		t.Errorf("export changes reset sessions: a=%d b=%d", r.Sessions(addrA), r.Sessions(addrB))
	}
	// The manager's books match the speaker: a full Apply of the same state is a no-op.
	mustApply(t, m, desiredOf(global, exporting(a, path(pfxPod)), exporting(b, path(pfxPod))))
	if added, deleted := r.PathCalls(); len(added)+len(deleted) != 0 {
		t.Errorf("a full Apply after ApplyExports changed paths: added %v, deleted %v", added, deleted)
	}
}
