package checkpoint

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"kbgp.io/kbgp/internal/bgp"
)

// restartMarkerFile is the node-local record of a graceful stop, in the agent's state
// directory (a hostPath, so it outlives the pod). It holds no secret: only when the
// agent stopped, on which boot of the node, and how long its peers keep its routes.
const restartMarkerFile = "graceful-restart.json"

// restartMarker says that the last agent on this node stopped gracefully: its peers
// with graceful restart keep its routes, marked stale, until RestartTime has passed.
// The next agent that starts within that window restarts as a graceful-restart speaker
// with forwarding state preserved (RFC 4724 R and F bits), so the routers keep the
// stale routes until its End-of-RIB instead of flushing them when the session opens.
//
// BootID ties the marker to the running kernel: the forwarding state the routes lead
// to (pod and Service routing on the node) survives an agent restart, not a reboot, so
// a marker from before a reboot is not used; NodeName ties it to the node, so a disk
// image of another node's state directory claims nothing.
type restartMarker struct {
	StoppedAt   time.Time     `json:"stoppedAt"`
	RestartTime time.Duration `json:"restartTime"`
	NodeName    string        `json:"nodeName"`
	BootID      string        `json:"bootID"`
}

// bootIDPath names the running kernel's boot; it changes with every reboot.
const bootIDPath = "/proc/sys/kernel/random/boot_id"

// currentBootID is the running kernel's boot ID; "" where there is none (then no
// marker or checkpoint is trusted to describe forwarding state).
func currentBootID() string {
	b, err := os.ReadFile(bootIDPath)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// writeRestartMarker records a graceful stop of speakers that ran applied; nothing is
// written when no peer has graceful restart (no router keeps anything).
func writeRestartMarker(dir string, applied bgp.Desired, now time.Time, nodeName, bootID string) error {
	longest := applied.LongestRestartTime()
	if longest == 0 {
		return nil
	}
	data, err := json.Marshal(restartMarker{StoppedAt: now.UTC(), RestartTime: longest, NodeName: nodeName, BootID: bootID})
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, restartMarkerFile+".tmp")
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return fmt.Errorf("write the restart marker: %w", err)
	}
	return os.Rename(tmp, filepath.Join(dir, restartMarkerFile))
}

// takeRestartMarker reads and removes the marker a graceful stop left. found says there
// was one; until is when this start stops being a graceful restart — zero when the
// marker did not parse, is from another node or boot, or the routers' restart timers
// have run out since (they flushed the routes).
func takeRestartMarker(dir string, now time.Time, nodeName, bootID string) (until time.Time, found bool, err error) {
	path := filepath.Join(dir, restartMarkerFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, true, fmt.Errorf("read the restart marker: %w", err)
	}
	// One use only: a later start must not claim forwarding state it did not keep.
	if err := os.Remove(path); err != nil {
		return time.Time{}, true, fmt.Errorf("remove the restart marker: %w", err)
	}
	var m restartMarker
	if err := json.Unmarshal(data, &m); err != nil {
		return time.Time{}, true, fmt.Errorf("restart marker %s: %w", path, err)
	}
	if m.NodeName != nodeName {
		return time.Time{}, true, fmt.Errorf("restart marker %s is node %q's, this is %q", path, m.NodeName, nodeName)
	}
	if bootID == "" || m.BootID != bootID {
		return time.Time{}, true, fmt.Errorf("restart marker %s is from another boot of the node (%q, now %q): forwarding state did not survive", path, m.BootID, bootID)
	}
	if until := m.StoppedAt.Add(m.RestartTime); now.Before(until) {
		return until, true, nil
	}
	return time.Time{}, true, nil
}
