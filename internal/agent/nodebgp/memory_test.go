package nodebgp

import (
	"sync/atomic"
	"testing"
	"time"
)

// TestMemoryIsReleasedAfterABulkChange: a change below bulkRoutes releases nothing; a
// bulk one releases at once; bulk changes within every of that release make one more
// release, when every has passed, not one each.
func TestMemoryIsReleasedAfterABulkChange(t *testing.T) {
	const every = 300 * time.Millisecond
	var released atomic.Int32
	var at [3]atomic.Int64
	m := &memoryRelease{every: every, free: func() {
		n := released.Add(1)
		if n <= int32(len(at)) {
			at[n-1].Store(time.Now().UnixNano())
		}
	}}
	m.after(bulkRoutes - 1)
	time.Sleep(50 * time.Millisecond)
	if n := released.Load(); n != 0 {
		t.Fatalf("a change of fewer than bulkRoutes routes released memory %d times", n)
	}
	start := time.Now()
	m.after(bulkRoutes)
	waitFor(t, func() bool { return released.Load() == 1 })
	if took := time.Unix(0, at[0].Load()).Sub(start); took > every/2 {
		t.Errorf("the first release came %s after the change, want at once", took)
	}
	m.after(bulkRoutes)
	m.after(5 * bulkRoutes)
	waitFor(t, func() bool { return released.Load() == 2 })
	if gap := time.Duration(at[1].Load() - at[0].Load()); gap < every {
		t.Errorf("the second release came %s after the first, want at least %s", gap, every)
	}
	time.Sleep(2 * every)
	if n := released.Load(); n != 2 {
		t.Errorf("%d releases, want 2: two changes within the interval make one", n)
	}
	var none *memoryRelease
	none.after(bulkRoutes)
}

// waitFor polls cond for up to 5 s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
	}
}
