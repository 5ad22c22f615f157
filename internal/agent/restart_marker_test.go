package agent

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"kbgp.io/kbgp/internal/bgp"
)

func TestRestartMarker(t *testing.T) {
	stopped := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	withGR := func(restart time.Duration) bgp.Desired {
		return bgp.Desired{Instances: map[bgp.InstanceKey]bgp.DesiredInstance{{LocalASN: 65001}: {Peers: map[string]bgp.DesiredPeer{
			"a": {Peer: bgp.Peer{GracefulRestart: bgp.GracefulRestart{Enabled: true, RestartTime: restart}}},
			"b": {Peer: bgp.Peer{GracefulRestart: bgp.GracefulRestart{Enabled: true, RestartTime: restart / 2}}},
			"c": {Peer: bgp.Peer{}},
		}}}}
	}
	for _, tc := range []struct {
		name    string
		applied bgp.Desired
		startAt time.Time
		want    time.Time
	}{
		{"restarted in time: until the longest restart time", withGR(120 * time.Second), stopped.Add(30 * time.Second), stopped.Add(120 * time.Second)},
		{"restarted too late: the routers flushed", withGR(120 * time.Second), stopped.Add(121 * time.Second), time.Time{}},
		{"no peer with graceful restart: no marker", bgp.Desired{}, stopped.Add(time.Second), time.Time{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := writeRestartMarker(dir, tc.applied, stopped); err != nil {
				t.Fatal(err)
			}
			got, err := takeRestartMarker(dir, tc.startAt)
			if err != nil || !got.Equal(tc.want) {
				t.Errorf("takeRestartMarker = %v, %v; want %v", got, err, tc.want)
			}
			if again, _ := takeRestartMarker(dir, tc.startAt); !again.IsZero() {
				t.Error("a marker was used twice")
			}
		})
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, restartMarkerFile), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if until, err := takeRestartMarker(dir, stopped); err == nil || !until.IsZero() {
		t.Errorf("a corrupt marker: %v, %v; want an error and a fresh start", until, err)
	}
	if _, err := os.Stat(filepath.Join(dir, restartMarkerFile)); !os.IsNotExist(err) {
		t.Error("a corrupt marker was left behind")
	}
}
