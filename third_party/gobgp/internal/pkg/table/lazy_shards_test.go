package table

import (
	"runtime"
	"testing"

	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// TestEmptyTableIsSmall: a table's shards are made on first use (kbgp patch "lazy
// table shards"), so an empty table — every family of every peer's Adj-RIB-In starts
// as one — costs a few KiB, not the ~200 KiB of 2048 shards made up front.
func TestEmptyTableIsSmall(t *testing.T) {
	const tables = 200
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	kept := make([]*Table, tables)
	for i := range kept {
		kept[i] = NewTable(nil, bgp.RF_IPv4_UC)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(kept)
	if per := (after.HeapAlloc - before.HeapAlloc) / tables; per > 32<<10 {
		t.Fatalf("an empty table takes %d KiB, want at most 32 KiB", per>>10)
	}
}
