package report

import (
	"testing"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/speakers"
)

// TestPeersThatNeverStartAreIdle: a configured peer the speakers do not run (missing
// Secret, VRF device or peer config) gets an Idle sample, so kbgp_session_state shows
// it down and the session alerts fire; a running peer keeps its own state.
func TestPeersThatNeverStartAreIdle(t *testing.T) {
	nc := &kbgpv1.BGPNodeConfig{Spec: kbgpv1.BGPNodeConfigSpec{BGPInstances: []kbgpv1.BGPNodeInstance{{
		BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: 65001},
		Peers: []kbgpv1.BGPNodePeer{
			{BGPPeer: kbgpv1.BGPPeer{Name: "running"}},
			{BGPPeer: kbgpv1.BGPPeer{Name: "no-secret"}},
			{BGPPeer: kbgpv1.BGPPeer{Name: "no-vrf", VRF: "red"}},
		},
	}}}}
	snap := map[bgp.InstanceKey]speakers.InstanceSnapshot{{LocalASN: 65001}: {Peers: map[string]speakers.PeerSnapshot{
		"running": {Status: bgp.PeerStatus{State: bgp.StateEstablished}},
	}}}
	got := map[string]string{}
	for _, s := range peerSamples(nc, snap) {
		got[s.Peer+"/"+s.VRF] = s.State
	}
	want := map[string]string{"running/": "Established", "no-secret/": "Idle", "no-vrf/red": "Idle"}
	if len(got) != len(want) {
		t.Fatalf("samples %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}
}
