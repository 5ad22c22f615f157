package table

import (
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/netip"
	"testing"
	"time"

	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// walkedCount is what Count answered before it was kept: the paths the tables hold.
func walkedCount(adj *AdjRib, families []bgp.Family) int {
	n := 0
	adj.walk(families, func(d *destination) bool {
		n += len(d.knownPathList)
		return false
	})
	return n
}

// TestCountIsKeptNotWalked: Count is read for every UPDATE a peer with a prefix
// limit sends, so it must not walk the table. A destination put into the table
// behind Update's back is not counted; a walk would count it.
func TestCountIsKeptNotWalked(t *testing.T) {
	families := []bgp.Family{bgp.RF_IPv4_UC}
	adj := NewAdjRib(slog.Default(), families)
	adj.Update([]*Path{adjCountPath(t, "10.0.0.1/32", 0, false)})

	planted := adjCountPath(t, "10.0.0.2/32", 0, false)
	tbl := adj.table[bgp.RF_IPv4_UC]
	shard := tbl.destinations.getShard(planted.GetNlri())
	shard.mu.Lock()
	d := tbl.getOrCreateDest(shard, planted.GetNlri(), 0)
	d.knownPathList = append(d.knownPathList, planted)
	shard.mu.Unlock()

	if got := adj.Count(families); got != 1 {
		t.Fatalf("Count = %d after one Update, want 1: it walked the table", got)
	}
}

// TestCountFollowsEveryChange applies random adds, replacements, withdrawals (with
// add-path identifiers, some paths rejected) and the stale, LLGR and drop
// operations to an Adj-RIB-In of two families, and checks after each step that
// the kept count is what a walk of the tables finds.
func TestCountFollowsEveryChange(t *testing.T) {
	families := []bgp.Family{bgp.RF_IPv4_UC, bgp.RF_IPv6_UC}
	adj := NewAdjRib(slog.Default(), families)
	out := NewAdjRib(slog.Default(), families)
	rng := rand.New(rand.NewPCG(1, 2))
	prefix := func() string {
		if rng.IntN(2) == 0 {
			return fmt.Sprintf("10.0.0.%d/32", rng.IntN(16))
		}
		return fmt.Sprintf("2001:db8::%x/128", rng.IntN(16))
	}
	for step := range 2000 {
		var op string
		switch r := rng.IntN(100); {
		case r < 60:
			op = "update"
			batch := make([]*Path, 1+rng.IntN(4))
			for i := range batch {
				batch[i] = adjCountPath(t, prefix(), uint32(rng.IntN(3)), rng.IntN(3) == 0)
				batch[i].SetRejected(rng.IntN(4) == 0)
			}
			adj.Update(batch)
		case r < 70:
			op = "adj-out"
			out.UpdateAdjRibOut([]*Path{adjCountPath(t, prefix(), 0, false)})
		case r < 78:
			op = "stale all"
			adj.StaleAll(families)
		case r < 86:
			op = "drop stale"
			adj.DropStale(families)
		case r < 94:
			op = "llgr"
			adj.MarkLLGRStaleOrDrop(families)
		default:
			op = "drop"
			adj.Drop(families[rng.IntN(2):])
		}
		for _, f := range families {
			fs := []bgp.Family{f}
			if got, want := adj.Count(fs), walkedCount(adj, fs); got != want {
				t.Fatalf("step %d (%s): Count(%s) = %d, the table holds %d", step, op, f, got, want)
			}
			if got, want := out.Count(fs), walkedCount(out, fs); got != want {
				t.Fatalf("step %d (%s): adj-out Count(%s) = %d, the table holds %d", step, op, f, got, want)
			}
		}
	}
}

// adjCountPath is a path for prefix with add-path identifier id, or its withdrawal.
func adjCountPath(t *testing.T, prefix string, id uint32, withdraw bool) *Path {
	t.Helper()
	p := netip.MustParsePrefix(prefix)
	nlri, err := bgp.NewIPAddrPrefix(p)
	if err != nil {
		t.Fatal(err)
	}
	family := bgp.RF_IPv4_UC
	if p.Addr().Is6() {
		family = bgp.RF_IPv6_UC
	}
	attrs := []bgp.PathAttributeInterface{bgp.NewPathAttributeOrigin(0)}
	path := NewPath(family, &PeerInfo{}, bgp.PathNLRI{NLRI: nlri, ID: id}, withdraw, attrs, time.Now(), false)
	path.remoteID = id
	return path
}
