package table

import (
	"log/slog"
	"testing"

	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// TestNoPathIDMapWhereNoneIsKept checks kbgp patch "no path ID map where none is
// kept": an Adj-RIB's destinations hold no path ID map, and a withdrawal still
// removes them; a destination made without a map that is calculated after all gives
// its paths the IDs that an empty map gave them.
func TestNoPathIDMapWhereNoneIsKept(t *testing.T) {
	families := []bgp.Family{bgp.RF_IPv4_UC}
	adj := NewAdjRib(slog.Default(), families)
	path := adjCountPath(t, "10.0.0.1/32", 0, false)
	adj.Update([]*Path{path})
	tbl := adj.table[bgp.RF_IPv4_UC]
	if d := tbl.GetDestination(path.GetNlri()); d == nil {
		t.Fatal("the Adj-RIB holds no destination for the path it was given")
	}
	adj.walk(families, func(d *destination) bool {
		if d.localIdMap != nil {
			t.Errorf("an Adj-RIB destination holds a path ID map of %d words, want none", len(d.localIdMap.bitmap))
		}
		return false
	})
	adj.Update([]*Path{adjCountPath(t, "10.0.0.1/32", 0, true)})
	if d := tbl.GetDestination(path.GetNlri()); d != nil {
		t.Errorf("the destination is still there after its path's withdrawal: %v", d.knownPathList)
	}

	// Calculate on a destination made without a map, against one with an empty map
	// (what newDestination made before the patch): the same IDs.
	nlri := path.GetNlri()
	without, empty := newDestination(nlri, 0), &destination{nlri: nlri, localIdMap: NewBitmap(0)}
	for i, source := range []*PeerInfo{{AS: 65001}, {AS: 65002}, {AS: 65003}} {
		p := NewPath(bgp.RF_IPv4_UC, source, bgp.PathNLRI{NLRI: nlri}, false, path.GetPathAttrs(), path.GetTimestamp(), false)
		without.Calculate(slog.Default(), p.Clone(false))
		empty.Calculate(slog.Default(), p.Clone(false))
		for j := range without.knownPathList {
			if got, want := without.knownPathList[j].localID, empty.knownPathList[j].localID; got != want {
				t.Errorf("after %d paths, path %d has ID %d, want %d", i+1, j, got, want)
			}
		}
	}
}
