package nodebgp

import (
	"runtime/debug"
	"sync"
	"time"

	"kbgp.io/kbgp/internal/bgp"
)

// bulkRoutes is the size of a build or change, in routes, after which the agent hands
// the heap's free memory back to the operating system.
const bulkRoutes = 10_000

// releaseEvery is the least time between two releases: a full build runs again on
// some retries (a missing VRF device, a router ID waiting for its Node) and each
// release is a collection, a second of CPU time at a million routes.
const releaseEvery = time.Minute

// memoryRelease hands the memory a bulk change left behind back to the operating
// system once the change is applied. A full build of 100k routes makes the exports
// again beside the ones it replaces, and the speakers and GoBGP build the change batch
// by batch: the heap peaks at about twice what it keeps, and grows to twice that peak
// before Go collects (GOGC 100). Go keeps those pages until its next collection, which
// an agent gone quiet runs only every two minutes, and then hands them back slowly:
// without this an agent holding 100k routes stays about 1.6 KiB a route resident,
// three times its live heap (bench/RESULTS.md, B1m). A release is one collection, run
// beside the agent's work, at most one every releaseEvery: a bulk change within that
// time of the last release is handed back when the time is up.
type memoryRelease struct {
	mu sync.Mutex
	// scheduled is set from a request until the release it scheduled starts; last is
	// when the last release started.
	scheduled bool
	last      time.Time
	every     time.Duration
	// free is debug.FreeOSMemory; tests count it.
	free func()
}

func newMemoryRelease() *memoryRelease {
	return &memoryRelease{every: releaseEvery, free: debug.FreeOSMemory}
}

// after notes a build or change of routes routes: a bulk one asks for a release. A
// nil release notes nothing.
func (m *memoryRelease) after(routes int) {
	if m == nil || routes < bulkRoutes {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.scheduled {
		return
	}
	m.scheduled = true
	time.AfterFunc(max(time.Until(m.last.Add(m.every)), 0), m.run)
}

func (m *memoryRelease) run() {
	m.mu.Lock()
	m.scheduled, m.last = false, time.Now()
	m.mu.Unlock()
	m.free()
}

// desiredRoutes are the routes a full build has the speakers send, over all peers.
func desiredRoutes(d bgp.Desired) int {
	n := 0
	for _, inst := range d.Instances {
		for _, p := range inst.Peers {
			n += len(p.Export)
		}
	}
	return n
}

// changedRoutes are the routes a change sets or removes, over all peers.
func changedRoutes(changes bgp.ExportChanges) int {
	n := 0
	for _, chs := range changes {
		for _, ch := range chs {
			n += len(ch.Set) + len(ch.Remove)
		}
	}
	return n
}
