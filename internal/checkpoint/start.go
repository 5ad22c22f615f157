package checkpoint

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"
)

// defaultRestoreAfter is how long a starting agent waits for the API server before it
// restores its speakers from the checkpoint: a reachable API server answers well within
// it, and the routers' restart timers (120 s by default) are far longer.
const defaultRestoreAfter = 5 * time.Second

// startState is what a start finds in the state directory.
type startState struct {
	// restartUntil: speakers started before it restart as graceful-restart speakers
	// with forwarding state preserved; zero for a fresh start.
	restartUntil time.Time
	// checkpoint is the last applied state, when there is a usable one.
	checkpoint    Checkpoint
	hasCheckpoint bool
	// raw is the checkpoint file as read, so an unchanged state is not rewritten.
	raw []byte
}

// ensureStateDir creates the state directory, readable by its owner only, where it does
// not exist, and checks that files can be written in it.
func ensureStateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("state directory: %w", err)
	}
	probe, err := os.CreateTemp(dir, ".probe-*")
	if err != nil {
		return fmt.Errorf("state directory %s is not writable: %w", dir, err)
	}
	probe.Close()
	return os.Remove(probe.Name())
}

// readStartState takes the restart marker and reads the checkpoint. Either may be
// missing, unusable or another node's or boot's; the start is then a fresh one, which
// is always safe.
//
// After a graceful stop the marker says until when the routers keep the routes. After
// a crash (a checkpoint of this boot but no marker: SIGKILL, OOM, a panic) the
// previous agent could not say when it stopped, but its routers keep its routes for at
// most the longest restart time of its peers from then, so the start claims forwarding
// state until that long from now: the node's forwarding did not stop with the agent,
// and a router whose timer already ran out has nothing stale to keep.
func readStartState(dir, nodeName, bootID string, now time.Time, logger *slog.Logger) startState {
	var st startState
	until, found, err := takeRestartMarker(dir, now, nodeName, bootID)
	if err != nil {
		logger.Warn("graceful-restart marker unusable; not claiming forwarding state", "error", err)
	}
	st.restartUntil = until
	c, raw, ok, err := Read(dir)
	if err != nil {
		logger.Warn("checkpoint unusable; starting without it", "error", err)
	}
	if ok {
		if err := c.Belongs(nodeName, bootID); err != nil {
			logger.Warn("checkpoint not restored; starting without it", "error", err)
			ok = false
		}
	}
	st.checkpoint, st.hasCheckpoint, st.raw = c, ok, raw
	if !found && ok {
		if rt := c.Desired.LongestRestartTime(); rt > 0 {
			st.restartUntil = now.Add(rt)
			logger.Info("restarting after an agent crash on this boot: forwarding state preserved", "until", st.restartUntil)
		}
	}
	return st
}

// restoreWhenAPIUnreachable applies the checkpoint to set unless the API server's
// state is applied within after: the agent then runs what it last ran while it keeps
// trying the API server, and reconciles to the live state when it answers.
func restoreWhenAPIUnreachable(ctx context.Context, st startState, after time.Duration, gate *restoreGate, set Speakers, logger *slog.Logger) {
	if !st.hasCheckpoint {
		return
	}
	select {
	case <-ctx.Done():
		return
	case <-time.After(after):
	}
	gate.restore(func() {
		logger.Info("API server state not applied yet: restoring the speakers from the checkpoint", "after", after, "instances", len(st.checkpoint.Desired.Instances))
		if err := set.Apply(ctx, st.checkpoint.Desired); err != nil {
			logger.Warn("restoring from the checkpoint failed in part; the API server's state will be applied when it answers", "error", err)
		}
	})
}
