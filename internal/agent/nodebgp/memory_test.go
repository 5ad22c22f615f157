package nodebgp

import (
	"testing"
	"time"
)

// TestMemoryIsReleasedAfterABulkChange: a change below bulkRoutes releases nothing; a
// bulk one releases once; bulk changes while a release runs make one more release
// after it, not one each.
func TestMemoryIsReleasedAfterABulkChange(t *testing.T) {
	started, finish := make(chan struct{}, 10), make(chan struct{})
	m := &memoryRelease{free: func() {
		started <- struct{}{}
		<-finish
	}}
	m.after(bulkRoutes - 1)
	select {
	case <-started:
		t.Fatal("a change of fewer than bulkRoutes routes released memory")
	case <-time.After(50 * time.Millisecond):
	}
	m.after(bulkRoutes)
	<-started
	m.after(bulkRoutes)
	m.after(5 * bulkRoutes)
	finish <- struct{}{}
	<-started
	finish <- struct{}{}
	select {
	case <-started:
		t.Fatal("two bulk changes during a release made two more releases")
	case <-time.After(50 * time.Millisecond):
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.running || m.again {
		t.Errorf("after the releases: running %v, again %v", m.running, m.again)
	}
	var none *memoryRelease
	none.after(bulkRoutes)
}
