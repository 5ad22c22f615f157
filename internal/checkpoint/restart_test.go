package checkpoint

import (
	"context"
	"io"
	"log/slog"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"kbgp.io/kbgp/internal/bgp"
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
		nodeAtStart   string
		bootAtStart   string
		want          time.Time
		wantFound     bool
		wantErrReboot bool
	}{
		{"restarted in time: until the longest restart time", withGR(120 * time.Second), stopped.Add(30 * time.Second), "n1", "boot-1", stopped.Add(120 * time.Second), true, false},
		{"restarted too late: the routers flushed", withGR(120 * time.Second), stopped.Add(121 * time.Second), "n1", "boot-1", time.Time{}, true, false},
		{"the node rebooted: forwarding state is gone", withGR(120 * time.Second), stopped.Add(30 * time.Second), "n1", "boot-2", time.Time{}, true, true},
		{"no boot ID: nothing is trusted", withGR(120 * time.Second), stopped.Add(30 * time.Second), "n1", "", time.Time{}, true, true},
		{"another node's state directory: nothing is trusted", withGR(120 * time.Second), stopped.Add(30 * time.Second), "n2", "boot-1", time.Time{}, true, true},
		{"no peer with graceful restart: no marker", bgp.Desired{}, stopped.Add(time.Second), "n1", "boot-1", time.Time{}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := writeRestartMarker(dir, tc.applied, stopped, "n1", "boot-1"); err != nil {
				t.Fatal(err)
			}
			got, found, err := takeRestartMarker(dir, tc.startAt, tc.nodeAtStart, tc.bootAtStart)
			if !got.Equal(tc.want) || found != tc.wantFound || (err != nil) != tc.wantErrReboot {
				t.Errorf("takeRestartMarker = %v, %v, %v; want %v, %v, error %v", got, found, err, tc.want, tc.wantFound, tc.wantErrReboot)
			}
			if again, found, _ := takeRestartMarker(dir, tc.startAt, tc.nodeAtStart, tc.bootAtStart); !again.IsZero() || found {
				t.Error("a marker was used twice")
			}
		})
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, restartMarkerFile), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if until, _, err := takeRestartMarker(dir, stopped, "n1", "boot-1"); err == nil || !until.IsZero() {
		t.Errorf("a corrupt marker: %v, %v; want an error and a fresh start", until, err)
	}
	if _, err := os.Stat(filepath.Join(dir, restartMarkerFile)); !os.IsNotExist(err) {
		t.Error("a corrupt marker was left behind")
	}
}

// TestReadStartState: whether a start claims forwarding state, from the marker and the
// checkpoint it finds; a checkpoint of another boot or another node is not restored.
func TestReadStartState(t *testing.T) {
	now := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, tc := range []struct {
		name           string
		marker         bool
		checkpointNode string
		checkpointBoot string
		checkpointGR   time.Duration
		want           time.Time
		wantCheckpoint bool
	}{
		{"graceful stop: the marker's window", true, "n1", "boot-1", 120 * time.Second, now.Add(-10 * time.Second).Add(120 * time.Second), true},
		{"crash on this boot: the longest restart time from now", false, "n1", "boot-1", 90 * time.Second, now.Add(90 * time.Second), true},
		{"crash, checkpoint from before a reboot: fresh start, no restore", false, "n1", "boot-0", 90 * time.Second, time.Time{}, false},
		{"another node's checkpoint: fresh start, no restore", false, "n2", "boot-1", 90 * time.Second, time.Time{}, false},
		{"crash, no peer with graceful restart: fresh start", false, "n1", "boot-1", 0, time.Time{}, true},
		{"nothing on disk: fresh start", false, "", "", 0, time.Time{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.marker {
				if err := writeRestartMarker(dir, withGR(120*time.Second), now.Add(-10*time.Second), "n1", "boot-1"); err != nil {
					t.Fatal(err)
				}
			}
			if tc.checkpointBoot != "" {
				d := withGR(tc.checkpointGR)
				if tc.checkpointGR == 0 {
					d = bgp.Desired{}
				}
				data, err := Encode(Checkpoint{NodeName: tc.checkpointNode, BootID: tc.checkpointBoot, Desired: d})
				if err != nil {
					t.Fatal(err)
				}
				if err := Write(dir, data); err != nil {
					t.Fatal(err)
				}
			}
			st := readStartState(dir, "n1", "boot-1", now, logger)
			if !st.restartUntil.Equal(tc.want) {
				t.Errorf("restart until %v, want %v", st.restartUntil, tc.want)
			}
			if st.hasCheckpoint != tc.wantCheckpoint {
				t.Errorf("checkpoint to restore: %v, want %v", st.hasCheckpoint, tc.wantCheckpoint)
			}
		})
	}
}

// TestStateDir: a --state-dir that does not exist is created, owner only; one that
// cannot be written in stops the start with an error instead of a graceful restart
// that silently never happens.
func TestStateDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "state")
	if err := ensureStateDir(dir); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(dir); err != nil || info.Mode().Perm() != 0o700 {
		t.Fatalf("state directory: %v, %v; want mode 0700", info, err)
	}
	if err := writeRestartMarker(dir, withGR(time.Minute), time.Now(), "n1", "boot-1"); err != nil {
		t.Errorf("marker in the created directory: %v", err)
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := ensureStateDir(file); err == nil {
		t.Error("a file as the state directory was accepted")
	}
}

// TestCheckpointWriteRetried: a write that failed is tried again, without waiting for
// the state to change.
func TestCheckpointWriteRetried(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	w := newCheckpointWriter(dir, "n1", "boot-1", func() bgp.Desired { return withGR(90 * time.Second) }, nil, func(bool) {}, slog.New(slog.DiscardHandler))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); w.Start(ctx) }()
	defer func() { cancel(); <-done }()
	w.Trigger()
	time.Sleep(300 * time.Millisecond) // the first write fails: no directory yet
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(6 * time.Second)
	for {
		c, _, ok, err := Read(dir)
		if ok && err == nil {
			if c.NodeName != "n1" || c.BootID != "boot-1" {
				t.Errorf("checkpoint of node %q boot %q, want n1 and boot-1", c.NodeName, c.BootID)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the checkpoint was not written 6 s after the directory could take it: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestReadsTheFilesOfEarlierAgents: the files in testdata/agent-v2 are what the agent
// wrote before its restart state moved into this package (checkpoint version 2 and the
// graceful-restart marker, by the code of commit 3fb8eab); a start after an upgrade
// still reads both.
func TestReadsTheFilesOfEarlierAgents(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{FileName, restartMarkerFile} {
		data, err := os.ReadFile(filepath.Join("testdata", "agent-v2", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	stopped := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	st := readStartState(dir, "n1", "boot-1", stopped.Add(30*time.Second), slog.New(slog.DiscardHandler))
	if want := stopped.Add(120 * time.Second); !st.restartUntil.Equal(want) {
		t.Errorf("restart until %v, want %v (the marker's window)", st.restartUntil, want)
	}
	if !st.hasCheckpoint {
		t.Fatal("the version 2 checkpoint was not read")
	}
	if got, want := st.checkpoint.Desired, withGR(120*time.Second); !reflect.DeepEqual(got, want) {
		t.Errorf("checkpoint = %+v, want %+v", got, want)
	}
}
