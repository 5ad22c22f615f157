package cluster

import (
	"strings"
	"testing"
	"time"

	"kbgp.io/kbgp/test/cluster/kcluster"
)

// TestRolloutOrder checks the ordering rule on two timelines this suite recorded: one
// node at a time, and a rollout started before the old agents had been ready for
// minReadySeconds, which the DaemonSet controller then replaced two at a time.
func TestRolloutOrder(t *testing.T) {
	const a, b = "kbgp:test-a", "kbgp:test-b"
	at := func(s string) time.Time {
		tm, err := time.Parse("15:04:05.000", s)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	ev := func(s, what, pod, node, image string) kcluster.PodEvent {
		return kcluster.PodEvent{At: at(s), What: what, Pod: pod, Node: node, Image: image}
	}
	oneAtATime := []kcluster.PodEvent{
		ev("03:57:44.061", "deleting", "old-1", "node-1", a),
		ev("03:57:47.116", "created", "new-1", "", b),
		ev("03:58:04.000", "ready", "new-1", "node-1", b),
		ev("03:58:14.297", "deleting", "old-3", "node-3", a),
		ev("03:58:15.693", "created", "new-3", "", b),
		ev("03:58:30.620", "ready", "new-3", "node-3", b),
		ev("03:58:40.653", "deleting", "old-2", "node-2", a),
		ev("03:58:42.345", "created", "new-2", "", b),
		ev("03:58:59.000", "ready", "new-2", "node-2", b),
	}
	twoAtOnce := []kcluster.PodEvent{
		ev("03:48:57.451", "deleting", "old-1", "node-1", a),
		ev("03:48:57.484", "deleting", "old-2", "node-2", a),
		ev("03:48:59.658", "created", "new-2", "", b),
		ev("03:49:00.463", "created", "new-1", "", b),
		ev("03:49:18.290", "ready", "new-2", "node-2", b),
		ev("03:49:18.402", "ready", "new-1", "node-1", b),
	}
	tooSoon := append([]kcluster.PodEvent(nil), oneAtATime...)
	tooSoon[3].At = at("03:58:09.000") // 5 s after new-1 became ready

	for name, tc := range map[string]struct {
		events []kcluster.PodEvent
		want   string
	}{
		"one at a time":   {oneAtATime, ""},
		"two at once":     {twoAtOnce, "node-2 was deleted -20.918s after new-1"},
		"before minReady": {tooSoon, "node-3 was deleted 5s after new-1"},
	} {
		t.Run(name, func(t *testing.T) {
			problems := rolloutOrder(tc.events, b, 10*time.Second)
			got := strings.Join(problems, "\n")
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("rolloutOrder: %q, want %q", got, tc.want)
			}
		})
	}
}
