package metrics

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestSessionsFollowTheConfiguration: each peer has its 6 state series and 2 series per
// route metric; a removed peer's series are deleted; user strings are sanitised.
func TestSessionsFollowTheConfiguration(t *testing.T) {
	var s Sessions
	s.Update([]PeerSample{
		{LocalASN: 65001, Peer: "tor-a", State: "Established", Advertised: map[string]int{"ipv4": 3}},
		{LocalASN: 65001, Peer: "evil\npeer", VRF: "red", State: "Active"},
	})
	if n := testutil.CollectAndCount(sessionState); n != 12 {
		t.Fatalf("%d session-state series for 2 peers, want 12", n)
	}
	if v := testutil.ToFloat64(sessionState.WithLabelValues("65001", "tor-a", "", "Established")); v != 1 {
		t.Fatalf("tor-a Established = %v", v)
	}
	if v := testutil.ToFloat64(routesAdvertised.WithLabelValues("65001", "tor-a", "ipv4")); v != 3 {
		t.Fatalf("tor-a ipv4 advertised = %v", v)
	}
	if v := testutil.ToFloat64(sessionState.WithLabelValues("65001", "evil_peer", "red", "Active")); v != 1 {
		t.Fatalf("sanitised peer label not set: %v", v)
	}
	s.Update([]PeerSample{{LocalASN: 65001, Peer: "tor-a", State: "Idle"}})
	if n := testutil.CollectAndCount(sessionState); n != 6 {
		t.Fatalf("%d session-state series after removing a peer, want 6", n)
	}
	if n := testutil.CollectAndCount(routesReceived); n != 2 {
		t.Fatalf("%d received series for 1 peer, want 2", n)
	}
}
