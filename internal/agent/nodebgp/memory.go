package nodebgp

import (
	"runtime/debug"
	"sync"

	"kbgp.io/kbgp/internal/bgp"
)

// bulkRoutes is the size of a build or change, in routes, after which the agent hands
// the heap's free memory back to the operating system.
const bulkRoutes = 10_000

// memoryRelease hands the memory a bulk change left behind back to the operating
// system once the change is applied. A full build of 100k routes makes the exports
// again beside the ones it replaces, and the speakers and GoBGP build the change batch
// by batch: the heap peaks at about twice what it keeps, and grows to twice that peak
// before Go collects (GOGC 100). Go keeps those pages until its next collection, which
// an agent gone quiet runs only every two minutes, and then hands them back slowly:
// without this an agent holding 100k routes stays about 1.6 KiB a route resident,
// three times its live heap (bench/RESULTS.md, B1m). The release is one collection,
// run beside the agent's work; requests while it runs make one more after it.
type memoryRelease struct {
	mu             sync.Mutex
	running, again bool
	// free is debug.FreeOSMemory; tests count it.
	free func()
}

func newMemoryRelease() *memoryRelease {
	return &memoryRelease{free: debug.FreeOSMemory}
}

// after notes a build or change of routes routes: a bulk one asks for a release. A
// nil release notes nothing.
func (m *memoryRelease) after(routes int) {
	if m == nil || routes < bulkRoutes {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.running {
		m.again = true
		return
	}
	m.running = true
	go m.run()
}

func (m *memoryRelease) run() {
	for {
		m.free()
		m.mu.Lock()
		again := m.again
		m.running, m.again = again, false
		m.mu.Unlock()
		if !again {
			return
		}
	}
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
