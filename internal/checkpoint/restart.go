package checkpoint

import (
	"cmp"
	"context"
	"log/slog"
	"time"

	"kbgp.io/kbgp/internal/bgp"
)

// Speakers are the node's BGP speakers as restart state sees them: what they run, a
// restore from the checkpoint, and a start as a graceful-restart speaker.
type Speakers interface {
	Applied() bgp.Desired
	Apply(ctx context.Context, d bgp.Desired) error
	ResumeAfterGracefulRestart(until time.Time)
}

// Restart owns the agent's restart state in its state directory: the checkpoint of what
// the speakers run, kept current while the agent runs (Start, Trigger); the marker of a
// graceful stop (Stopped); at the start, what the previous agent left (Open) and the
// restore from the checkpoint while the API server is away (RestoreUnlessLive, GoLive).
// Without a state directory every start is a fresh one and all of it is off.
type Restart struct {
	dir, nodeName, bootID string
	speakers              Speakers
	logger                *slog.Logger
	start                 startState
	gate                  restoreGate
	// writer is nil without a state directory.
	writer *checkpointWriter
}

// Open prepares dir (created where missing: without it every write fails and graceful
// restart is silently off) and reads what the previous agent on this node and boot
// left there; speakers started before the marker's or the crash's window ends restart
// as graceful-restart speakers. failing reports whether checkpoint writes fail. An
// empty dir turns restart state off.
func Open(dir, nodeName string, speakers Speakers, failing func(bool), logger *slog.Logger) (*Restart, error) {
	r := &Restart{dir: dir, nodeName: nodeName, speakers: speakers, logger: logger}
	if dir == "" {
		return r, nil
	}
	if err := ensureStateDir(dir); err != nil {
		return nil, err
	}
	r.bootID = currentBootID()
	r.start = readStartState(dir, nodeName, r.bootID, time.Now(), logger)
	r.writer = newCheckpointWriter(dir, nodeName, r.bootID, speakers.Applied, r.start.raw, failing, logger)
	if until := r.start.restartUntil; !until.IsZero() {
		logger.Info("restarting as a graceful-restart speaker: forwarding state preserved", "until", until)
		speakers.ResumeAfterGracefulRestart(until)
	}
	return r, nil
}

// Start keeps the checkpoint equal to what the speakers run until ctx ends (a manager
// Runnable); without a state directory it returns at once.
func (r *Restart) Start(ctx context.Context) error {
	if r.writer == nil {
		return nil
	}
	return r.writer.Start(ctx)
}

// Trigger asks for a checkpoint of the current state after an apply; it never blocks.
func (r *Restart) Trigger() { r.writer.Trigger() }

// GoLive is called before applying state read from the API server: a restore from the
// checkpoint that has not happened by then never will.
func (r *Restart) GoLive() { r.gate.goLive() }

// RestoreUnlessLive restores the speakers from the checkpoint unless the API server's
// state is applied within after (0: 5 s). It runs beside the manager, whose start waits
// for caches the unreachable API server never fills; stop cancels it and waits for it.
func (r *Restart) RestoreUnlessLive(ctx context.Context, after time.Duration) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		restoreWhenAPIUnreachable(ctx, r.start, cmp.Or(after, defaultRestoreAfter), &r.gate, r.speakers, r.logger)
	}()
	return func() { cancel(); <-done }
}

// Stopped records a graceful stop of speakers that ran applied, for the next start.
func (r *Restart) Stopped(applied bgp.Desired) {
	if r.dir == "" {
		return
	}
	if err := writeRestartMarker(r.dir, applied, time.Now(), r.nodeName, r.bootID); err != nil {
		r.logger.Warn("graceful-restart marker not written: the next start is a fresh one", "error", err)
	}
}
