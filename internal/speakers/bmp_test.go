package speakers

import (
	"context"
	"net/netip"
	"slices"
	"testing"

	"kbgp.io/kbgp/internal/bgp"
)

// TestBMPCollectorsKeepSessions: adding, changing and removing BMP collectors reaches
// the speaker once per change, never recreates it and resets no session; an unchanged
// desired state makes no call; the snapshot reports the connections.
func TestBMPCollectorsKeepSessions(t *testing.T) {
	set, f := newFakeSet()
	a := exporting(basePeer("a", addrA), path(pfxPod))
	with := func(collectors ...bgp.BMPCollector) bgp.Desired {
		d := desiredOf(global, a)
		inst := d.Instances[key]
		inst.BMP = collectors
		d.Instances[key] = inst
		return d
	}
	c1 := bgp.BMPCollector{Address: netip.MustParseAddr("10.20.0.1"), Port: 11019, Monitoring: bgp.BMPPrePolicy}
	c2 := bgp.BMPCollector{Address: netip.MustParseAddr("10.20.0.2"), Port: 11019, Monitoring: bgp.BMPLocalRIB}
	c1Post := c1
	c1Post.Monitoring = bgp.BMPPostPolicy

	steps := []struct {
		name  string
		want  []bgp.BMPCollector
		calls int
	}{
		{"none", nil, 0},
		{"add one", []bgp.BMPCollector{c1}, 1},
		{"unchanged", []bgp.BMPCollector{c1}, 1},
		{"add another", []bgp.BMPCollector{c1, c2}, 2},
		{"change one", []bgp.BMPCollector{c1Post, c2}, 3},
		{"remove all", nil, 4},
	}
	for _, s := range steps {
		mustApply(t, set, with(s.want...))
		r := f.Router(key)
		got, calls := r.BMPCollectors()
		if !slices.Equal(got, s.want) || calls != s.calls {
			t.Errorf("%s: speaker has %v after %d SetBMP calls, want %v after %d", s.name, got, calls, s.want, s.calls)
		}
		if applied := set.Applied().Instances[key].BMP; !slices.Equal(applied, s.want) {
			t.Errorf("%s: Applied reports %v, want %v", s.name, applied, s.want)
		}
		if s.name == "add another" {
			snap, err := set.Snapshot(context.Background())
			if err != nil || len(snap[key].BMP) != 2 || !snap[key].BMP[0].Up {
				t.Errorf("%s: snapshot BMP %+v (%v), want both collectors up", s.name, snap[key].BMP, err)
			}
		}
	}
	if r := f.Router(key); r.Sessions(addrA) != 1 || f.Started(key) != 1 {
		t.Errorf("BMP changes reset: sessions %d, speakers %d", r.Sessions(addrA), f.Started(key))
	}
}
