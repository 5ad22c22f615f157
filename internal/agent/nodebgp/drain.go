package nodebgp

import (
	"sync"
	"time"
)

// drainClock remembers since when the node has been sending graceful-shutdown paths
// and how long its peers want them out before the sessions close, so that an agent
// stopped on a cordoned node (the node being drained) holds its sessions until the
// routers have moved the traffic.
type drainClock struct {
	mu    sync.Mutex
	since time.Time
	wait  time.Duration
}

// observe records the wait a full build asked for (0: not draining) at now.
func (d *drainClock) observe(wait time.Duration, now time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case wait == 0:
		d.since, d.wait = time.Time{}, 0
	case d.since.IsZero():
		d.since, d.wait = now, wait
	default:
		d.wait = wait
	}
}

// remaining is how much longer the graceful-shutdown paths must stay out at now.
func (d *drainClock) remaining(now time.Time) time.Duration {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.since.IsZero() {
		return 0
	}
	return max(0, d.since.Add(d.wait).Sub(now))
}
