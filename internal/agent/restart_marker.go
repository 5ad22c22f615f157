package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"kbgp.io/kbgp/internal/bgp"
)

// restartMarkerFile is the node-local record of a graceful stop, in the agent's state
// directory (a hostPath, so it outlives the pod). It holds no secret: only when the
// agent stopped and how long its peers keep its routes.
const restartMarkerFile = "graceful-restart.json"

// restartMarker says that the last agent on this node stopped gracefully: its peers
// with graceful restart keep its routes, marked stale, until RestartTime has passed.
// The next agent that starts within that window restarts as a graceful-restart speaker
// with forwarding state preserved (RFC 4724 R and F bits), so the routers keep the
// stale routes until its End-of-RIB instead of flushing them when the session opens.
type restartMarker struct {
	StoppedAt   time.Time     `json:"stoppedAt"`
	RestartTime time.Duration `json:"restartTime"`
}

// writeRestartMarker records a graceful stop of speakers that ran applied; nothing is
// written when no peer has graceful restart (no router keeps anything).
func writeRestartMarker(dir string, applied bgp.Desired, now time.Time) error {
	longest := applied.LongestRestartTime()
	if longest == 0 {
		return nil
	}
	data, err := json.Marshal(restartMarker{StoppedAt: now.UTC(), RestartTime: longest})
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, restartMarkerFile+".tmp")
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return fmt.Errorf("write the restart marker: %w", err)
	}
	return os.Rename(tmp, filepath.Join(dir, restartMarkerFile))
}

// takeRestartMarker reads and removes the marker a graceful stop left. It returns until
// when this start is a graceful restart — zero when there was no marker, it did not
// parse, or the routers' restart timers have run out since (they flushed the routes).
func takeRestartMarker(dir string, now time.Time) (until time.Time, err error) {
	path := filepath.Join(dir, restartMarkerFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("read the restart marker: %w", err)
	}
	// One use only: a later start must not claim forwarding state it did not keep.
	if err := os.Remove(path); err != nil {
		return time.Time{}, fmt.Errorf("remove the restart marker: %w", err)
	}
	var m restartMarker
	if err := json.Unmarshal(data, &m); err != nil {
		return time.Time{}, fmt.Errorf("restart marker %s: %w", path, err)
	}
	if until := m.StoppedAt.Add(m.RestartTime); now.Before(until) {
		return until, nil
	}
	return time.Time{}, nil
}
