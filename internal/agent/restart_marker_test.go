package agent

import (
	"io"
	"log/slog"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
	"time"

	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/checkpoint"
)

// withGR is a state whose longest graceful-restart time is restart.
func withGR(restart time.Duration) bgp.Desired {
	peer := func(name string, gr bgp.GracefulRestart) bgp.DesiredPeer {
		return bgp.DesiredPeer{Peer: bgp.Peer{Name: name, Address: netip.MustParseAddr("10.1.0.1"), ASN: 65100,
			Families: []bgp.Family{bgp.FamilyIPv4Unicast}, GracefulRestart: gr}}
	}
	return bgp.Desired{Instances: map[bgp.InstanceKey]bgp.DesiredInstance{{LocalASN: 65001}: {
		Global: bgp.Global{ASN: 65001, RouterID: netip.MustParseAddr("10.0.0.1")},
		Peers: map[string]bgp.DesiredPeer{
			"a": peer("a", bgp.GracefulRestart{Enabled: true, RestartTime: restart}),
			"b": peer("b", bgp.GracefulRestart{Enabled: true, RestartTime: restart / 2}),
			"c": peer("c", bgp.GracefulRestart{}),
		}}}}
}

func TestRestartMarker(t *testing.T) {
	stopped := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name          string
		applied       bgp.Desired
		startAt       time.Time
		bootAtStart   string
		want          time.Time
		wantFound     bool
		wantErrReboot bool
	}{
		{"restarted in time: until the longest restart time", withGR(120 * time.Second), stopped.Add(30 * time.Second), "boot-1", stopped.Add(120 * time.Second), true, false},
		{"restarted too late: the routers flushed", withGR(120 * time.Second), stopped.Add(121 * time.Second), "boot-1", time.Time{}, true, false},
		{"the node rebooted: forwarding state is gone", withGR(120 * time.Second), stopped.Add(30 * time.Second), "boot-2", time.Time{}, true, true},
		{"no boot ID: nothing is trusted", withGR(120 * time.Second), stopped.Add(30 * time.Second), "", time.Time{}, true, true},
		{"no peer with graceful restart: no marker", bgp.Desired{}, stopped.Add(time.Second), "boot-1", time.Time{}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := writeRestartMarker(dir, tc.applied, stopped, "boot-1"); err != nil {
				t.Fatal(err)
			}
			got, found, err := takeRestartMarker(dir, tc.startAt, tc.bootAtStart)
			if !got.Equal(tc.want) || found != tc.wantFound || (err != nil) != tc.wantErrReboot {
				t.Errorf("takeRestartMarker = %v, %v, %v; want %v, %v, error %v", got, found, err, tc.want, tc.wantFound, tc.wantErrReboot)
			}
			if again, found, _ := takeRestartMarker(dir, tc.startAt, tc.bootAtStart); !again.IsZero() || found {
				t.Error("a marker was used twice")
			}
		})
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, restartMarkerFile), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if until, _, err := takeRestartMarker(dir, stopped, "boot-1"); err == nil || !until.IsZero() {
		t.Errorf("a corrupt marker: %v, %v; want an error and a fresh start", until, err)
	}
	if _, err := os.Stat(filepath.Join(dir, restartMarkerFile)); !os.IsNotExist(err) {
		t.Error("a corrupt marker was left behind")
	}
}

// TestReadStartState: whether a start claims forwarding state, from the marker and the
// checkpoint it finds.
func TestReadStartState(t *testing.T) {
	now := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, tc := range []struct {
		name           string
		marker         bool
		checkpointBoot string
		checkpointGR   time.Duration
		want           time.Time
	}{
		{"graceful stop: the marker's window", true, "boot-1", 120 * time.Second, now.Add(-10 * time.Second).Add(120 * time.Second)},
		{"crash on this boot: the longest restart time from now", false, "boot-1", 90 * time.Second, now.Add(90 * time.Second)},
		{"crash, checkpoint from before a reboot: fresh start", false, "boot-0", 90 * time.Second, time.Time{}},
		{"crash, no peer with graceful restart: fresh start", false, "boot-1", 0, time.Time{}},
		{"nothing on disk: fresh start", false, "", 0, time.Time{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.marker {
				if err := writeRestartMarker(dir, withGR(120*time.Second), now.Add(-10*time.Second), "boot-1"); err != nil {
					t.Fatal(err)
				}
			}
			if tc.checkpointBoot != "" {
				d := withGR(tc.checkpointGR)
				if tc.checkpointGR == 0 {
					d = bgp.Desired{}
				}
				data, err := checkpoint.Encode(checkpoint.Checkpoint{BootID: tc.checkpointBoot, Desired: d})
				if err != nil {
					t.Fatal(err)
				}
				if err := checkpoint.Write(dir, data); err != nil {
					t.Fatal(err)
				}
			}
			st := readStartState(dir, "boot-1", now, logger)
			if !st.restartUntil.Equal(tc.want) {
				t.Errorf("restart until %v, want %v", st.restartUntil, tc.want)
			}
			if st.hasCheckpoint != (tc.checkpointBoot != "") {
				t.Errorf("checkpoint found: %v", st.hasCheckpoint)
			}
		})
	}
}
