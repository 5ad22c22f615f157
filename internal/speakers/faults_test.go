package speakers

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/bgp/bgpfake"
)

// TestEverySpeakerFailureIsRetried injects one failure into each speaker call a
// transition makes: Apply reports it, what failed did not become "last applied", and
// the next Apply converges to the desired state — nothing is lost or applied twice.
func TestEverySpeakerFailureIsRetried(t *testing.T) {
	a, b := basePeer("a", addrA), basePeer("b", addrB)
	updated := a
	updated.Timers.ConnectRetry = 7 * time.Second
	before := desiredOf(global, exporting(a, path(pfxPod)), exporting(b, path(pfxPod)))
	after := desiredOf(global, exporting(updated, path(pfxPod), path(pfxSvc, 1)))
	moved := desiredOf(bgp.Global{ASN: 65001, RouterID: global.RouterID, ListenPort: 1790}, exporting(a, path(pfxPod)))
	for _, tc := range []struct {
		op       bgpfake.Op
		from, to bgp.Desired
	}{
		{bgpfake.OpNewRouter, bgp.Desired{}, before},
		{bgpfake.OpAddPeer, bgp.Desired{}, before},
		{bgpfake.OpUpdatePeer, before, after},
		{bgpfake.OpDeletePeer, before, after},
		{bgpfake.OpApplyExports, before, after},
		{bgpfake.OpStop, before, moved},
	} {
		t.Run(string(tc.op), func(t *testing.T) {
			set, f := newFakeSet()
			mustApply(t, set, tc.from)
			old := f.Router(key)
			f.Faults.FailNext(tc.op, errors.New("boom"))
			err := set.Apply(context.Background(), tc.to)
			if err == nil || !strings.Contains(err.Error(), "injected "+string(tc.op)+" failure") {
				t.Fatalf("Apply with a failing %s: %v", tc.op, err)
			}
			mustApply(t, set, tc.to)
			if diff := cmp.Diff(desiredPaths(tc.to), sentPaths(f, tc.to), routerOpts...); diff != "" {
				t.Errorf("after the retry, the speaker sends (-desired +sent):\n%s", diff)
			}
			if diff := cmp.Diff(peersOf(tc.to), peersOf(set.Applied()), routerOpts...); diff != "" {
				t.Errorf("after the retry, applied peers (-want +got):\n%s", diff)
			}
			if old != nil && old != f.Router(key) {
				if stopped, _ := old.Stopped(); !stopped {
					t.Error("a replaced speaker is still running beside its successor")
				}
			}
			if len(set.PeerErrors()) != 0 {
				t.Errorf("peer errors after a successful retry: %v", set.PeerErrors())
			}
		})
	}
}

// TestWedgedSpeakerIsBoundedAndReported: a speaker call that never returns (GoBGP
// ignores contexts) makes Apply fail after the bound instead of holding the set, the
// status snapshot still answers, and Healthy reports the wedge until the call returns.
func TestWedgedSpeakerIsBoundedAndReported(t *testing.T) {
	f := &bgpfake.Factory{}
	set := New(f, slog.New(slog.NewTextHandler(io.Discard, nil)), nil, 100*time.Millisecond)
	a := basePeer("a", addrA)
	mustApply(t, set, desiredOf(global, exporting(a, path(pfxPod))))
	release := f.Faults.Hang(bgpfake.OpApplyExports)
	defer release()

	start := time.Now()
	err := set.Apply(context.Background(), desiredOf(global, exporting(a, path(pfxPod), path(pfxSvc))))
	if !errors.Is(err, ErrCallTimeout) {
		t.Fatalf("Apply on a wedged speaker: %v, want ErrCallTimeout", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("Apply took %s on a wedged speaker", took)
	}
	if _, err := set.Snapshot(context.Background()); err != nil {
		t.Errorf("status snapshot while a call hangs: %v", err)
	}
	if err := set.Healthy(); err == nil || !strings.Contains(err.Error(), "ApplyExports of instance 65001 has not returned") {
		t.Errorf("Healthy with a stuck call = %v", err)
	}
	release()
	deadline := time.Now().Add(5 * time.Second)
	for set.Healthy() != nil {
		if time.Now().After(deadline) {
			t.Fatalf("still unhealthy after the call returned: %v", set.Healthy())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// sentPaths is what the fake speaker sends each peer of d, by name.
func sentPaths(f *bgpfake.Factory, d bgp.Desired) map[string][]bgp.Path {
	out := map[string][]bgp.Path{}
	for k, inst := range d.Instances {
		r := f.Router(k)
		for name, p := range inst.Peers {
			out[name] = r.Advertised(p.Address)
		}
	}
	return out
}

// desiredPaths is each peer's export in d, by name, sorted as the fake reports it.
func desiredPaths(d bgp.Desired) map[string][]bgp.Path {
	out := map[string][]bgp.Path{}
	for _, inst := range d.Instances {
		for name, p := range inst.Peers {
			var paths []bgp.Path
			for _, pfx := range slices.SortedFunc(maps.Keys(p.Export), bgp.ComparePrefix) {
				paths = append(paths, bgp.Path{Prefix: pfx, Attributes: p.Export[pfx]})
			}
			out[name] = paths
		}
	}
	return out
}

// peersOf is the configuration of every peer of d, by name.
func peersOf(d bgp.Desired) map[string]bgp.Peer {
	out := map[string]bgp.Peer{}
	for _, inst := range d.Instances {
		for name, p := range inst.Peers {
			out[name] = p.Peer
		}
	}
	return out
}
