package bgp

import (
	"testing"
	"time"
)

// TestLongestRestartTime: the window in which some router may still hold a stopped
// speaker's routes is the longest restart time plus that peer's long-lived stale time.
func TestLongestRestartTime(t *testing.T) {
	peers := func(grs ...GracefulRestart) Desired {
		inst := DesiredInstance{Peers: map[string]DesiredPeer{}}
		for i, gr := range grs {
			inst.Peers[string(rune('a'+i))] = DesiredPeer{Peer: Peer{GracefulRestart: gr}}
		}
		return Desired{Instances: map[InstanceKey]DesiredInstance{{LocalASN: 64512}: inst}}
	}
	for name, tc := range map[string]struct {
		d    Desired
		want time.Duration
	}{
		"no peer":              {Desired{}, 0},
		"graceful restart off": {peers(GracefulRestart{RestartTime: time.Minute}), 0},
		"restart time":         {peers(GracefulRestart{Enabled: true, RestartTime: 2 * time.Minute}), 2 * time.Minute},
		"long-lived adds its stale time": {peers(
			GracefulRestart{Enabled: true, RestartTime: 2 * time.Minute},
			GracefulRestart{Enabled: true, RestartTime: time.Minute, LongLivedStaleTime: time.Hour}), time.Hour + time.Minute},
	} {
		if got := tc.d.LongestRestartTime(); got != tc.want {
			t.Errorf("%s: LongestRestartTime = %v, want %v", name, got, tc.want)
		}
	}
}
