package report

import (
	"strings"
	"testing"
	"time"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/speakers"
)

func TestReadinessWaitsForTheSessionsThatWereUp(t *testing.T) {
	nc := &kbgpv1.BGPNodeConfig{Status: kbgpv1.BGPNodeConfigStatus{BGPInstances: []kbgpv1.BGPNodeInstanceStatus{{
		LocalASN: 65001, Peers: []kbgpv1.BGPNodePeerStatus{
			{Name: "tor-a", PeeringState: kbgpv1.PeeringStateEstablished},
			{Name: "tor-b", VRF: "red", PeeringState: kbgpv1.PeeringStateEstablished},
			{Name: "down", PeeringState: kbgpv1.PeeringStateActive},
		},
	}}}}
	snap := func(states map[bgp.InstanceKey]map[string]bgp.SessionState) map[bgp.InstanceKey]speakers.InstanceSnapshot {
		out := map[bgp.InstanceKey]speakers.InstanceSnapshot{}
		for k, peers := range states {
			inst := speakers.InstanceSnapshot{Peers: map[string]speakers.PeerSnapshot{}}
			for name, st := range peers {
				inst.Peers[name] = speakers.PeerSnapshot{Status: bgp.PeerStatus{State: st}}
			}
			out[k] = inst
		}
		return out
	}
	def, red := bgp.InstanceKey{LocalASN: 65001}, bgp.InstanceKey{LocalASN: 65001, VRF: "red"}

	r := NewReadiness(time.Now(), time.Hour)
	if err := r.Check(nil); err == nil || !strings.Contains(err.Error(), "not been read") {
		t.Errorf("before the first reconcile: %v", err)
	}
	r.Expect(nc)
	r.observe(snap(map[bgp.InstanceKey]map[string]bgp.SessionState{def: {"tor-a": bgp.StateEstablished, "down": bgp.StateActive}, red: {"tor-b": bgp.StateActive}}))
	if err := r.Check(nil); err == nil || !strings.Contains(err.Error(), "65001/red/tor-b") || strings.Contains(err.Error(), "tor-a") || strings.Contains(err.Error(), "down") {
		t.Errorf("with tor-b still down: %v", err)
	}
	r.observe(snap(map[bgp.InstanceKey]map[string]bgp.SessionState{def: {"tor-a": bgp.StateEstablished}, red: {"tor-b": bgp.StateEstablished}}))
	if err := r.Check(nil); err != nil {
		t.Errorf("every session that was up is up again: %v", err)
	}
	r.observe(snap(map[bgp.InstanceKey]map[string]bgp.SessionState{def: {"tor-a": bgp.StateIdle}}))
	if err := r.Check(nil); err != nil {
		t.Errorf("readiness is for the rollout and stays once reached: %v", err)
	}

	bounded := NewReadiness(time.Now().Add(-2*time.Minute), time.Minute)
	bounded.Expect(nc)
	if err := bounded.Check(nil); err != nil {
		t.Errorf("past the bounded wait: %v", err)
	}
	none := NewReadiness(time.Now(), time.Hour)
	none.Expect(nil)
	if err := none.Check(nil); err != nil {
		t.Errorf("a node that runs no BGP: %v", err)
	}
}
