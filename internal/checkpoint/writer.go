package checkpoint

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
	"time"

	"kbgp.io/kbgp/internal/bgp"
)

// checkpointInterval is the least time between two checkpoint writes: a burst of
// Service events is one write of the state they leave, not one per event. A failed
// write is tried again after twice as long each time, up to checkpointRetryMax.
const (
	checkpointInterval = time.Second
	checkpointRetryMax = time.Minute
)

// checkpointWriter keeps the checkpoint in the state directory equal to what the
// speakers run. It is told after every apply and writes only when the encoded state
// differs from what the file holds.
type checkpointWriter struct {
	dir      string
	nodeName string
	bootID   string
	applied  func() bgp.Desired
	logger   *slog.Logger
	// failing reports whether writing the checkpoint fails (a metric).
	failing func(bool)
	pending chan struct{}
	// last is the file's content as last written or read.
	last []byte
}

func newCheckpointWriter(dir, nodeName, bootID string, applied func() bgp.Desired, last []byte, failing func(bool), logger *slog.Logger) *checkpointWriter {
	return &checkpointWriter{dir: dir, nodeName: nodeName, bootID: bootID, applied: applied, logger: logger, failing: failing, pending: make(chan struct{}, 1), last: last}
}

// Trigger asks for a write of the current state; it never blocks. Safe on nil (no
// state directory).
func (w *checkpointWriter) Trigger() {
	if w == nil {
		return
	}
	select {
	case w.pending <- struct{}{}:
	default:
	}
}

// Start writes on triggers until ctx ends, then writes what is still pending. A failed
// write is retried with backoff without waiting for the state to change again.
func (w *checkpointWriter) Start(ctx context.Context) error {
	failures := 0
	for {
		select {
		case <-ctx.Done():
			select {
			case <-w.pending:
				w.write()
			default:
			}
			return nil
		case <-w.pending:
			if w.write() {
				failures = 0
			} else {
				failures++
				w.Trigger()
			}
		}
		wait := checkpointInterval
		if failures > 0 {
			wait = min(checkpointInterval<<min(failures, 16), checkpointRetryMax)
		}
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
	}
}

// write writes the current state if it differs from the file; it reports false when
// that failed.
func (w *checkpointWriter) write() bool {
	data, err := Encode(Checkpoint{NodeName: w.nodeName, BootID: w.bootID, Desired: w.applied()})
	if err != nil {
		w.logger.Warn("checkpoint not encoded", "error", err)
		return true // encoding the same state again fails again
	}
	if bytes.Equal(data, w.last) {
		w.failing(false)
		return true
	}
	if err := Write(w.dir, data); err != nil {
		// The previous checkpoint stays; a restore from it is older, not wrong.
		w.logger.Warn("checkpoint not written; retrying", "error", err)
		w.failing(true)
		return false
	}
	w.failing(false)
	w.last = data
	return true
}

// restoreGate orders the one restore from the checkpoint against the first apply of
// the API server's state: whichever comes first, the checkpoint never overwrites live
// state.
type restoreGate struct {
	mu   sync.Mutex
	live bool
}

// goLive is called before applying state read from the API server: a restore that
// has not happened by then never will; one under way finishes first.
func (g *restoreGate) goLive() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.live = true
}

// restore runs apply unless live state came first; it reports whether it ran.
func (g *restoreGate) restore(apply func()) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.live {
		return false
	}
	apply()
	return true
}
