package status

import (
	"net/netip"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/speakers"
)

func TestPeerEvents(t *testing.T) {
	key := bgp.InstanceKey{LocalASN: 65001}
	red := bgp.InstanceKey{LocalASN: 65001, VRF: "red"}
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	snap := func(k bgp.InstanceKey, state bgp.SessionState, since time.Time, reason string) map[bgp.InstanceKey]speakers.InstanceSnapshot {
		return map[bgp.InstanceKey]speakers.InstanceSnapshot{k: {Peers: map[string]speakers.PeerSnapshot{"tor-a": {
			Peer:   bgp.Peer{Address: netip.MustParseAddr("10.1.1.1"), ASN: 65002},
			Status: bgp.PeerStatus{State: state, EstablishedSince: since, LastDownReason: reason},
		}}}}
	}
	const cease = "notification-received code 6(cease) subcode 2(administrative shutdown)"
	const held = "the peer sent more routes than maxPrefixes (ipv4-unicast 1000) allows; session held down since 2026-11-22T10:00:00Z, retried at 2026-11-22T10:00:30Z"
	heldDown := func(s map[bgp.InstanceKey]speakers.InstanceSnapshot, n uint64) map[bgp.InstanceKey]speakers.InstanceSnapshot {
		for _, inst := range s {
			for name, p := range inst.Peers {
				p.Status.HeldDown, p.Status.HeldDownDetail, p.Status.HeldDowns = bgp.HeldDownMaxPrefixes, held, n
				inst.Peers[name] = p
			}
		}
		return s
	}
	for _, tc := range []struct {
		name      string
		prev, cur map[bgp.InstanceKey]speakers.InstanceSnapshot
		want      []Event
	}{
		{"first seen Established", nil, snap(key, bgp.StateEstablished, t0, ""),
			[]Event{{"Normal", "PeerEstablished", "peer tor-a (10.1.1.1, AS 65002) of instance 65001 Established"}}},
		{"first seen Active: nothing", nil, snap(key, bgp.StateActive, time.Time{}, ""), nil},
		{"unchanged: nothing", snap(key, bgp.StateEstablished, t0, ""), snap(key, bgp.StateEstablished, t0, ""), nil},
		{"down with the NOTIFICATION", snap(key, bgp.StateEstablished, t0, ""), snap(key, bgp.StateActive, time.Time{}, cease),
			[]Event{{"Warning", "PeerDown", "peer tor-a (10.1.1.1, AS 65002) of instance 65001 left Established: " + cease}}},
		{"flapped between snapshots", snap(red, bgp.StateEstablished, t0, ""), snap(red, bgp.StateEstablished, t0.Add(time.Minute), "hold-timer-expired"),
			[]Event{
				{"Warning", "PeerDown", "peer tor-a (10.1.1.1, AS 65002) of instance 65001 in VRF red left Established: hold-timer-expired"},
				{"Normal", "PeerEstablished", "peer tor-a (10.1.1.1, AS 65002) of instance 65001 in VRF red Established"},
			}},
		{"removed: nothing", snap(key, bgp.StateEstablished, t0, ""), nil, nil},
		{"BFD down: BFDDown before PeerDown", withBFD(snap(key, bgp.StateEstablished, t0, ""), bgp.BFDUp), withBFD(snap(key, bgp.StateActive, time.Time{}, "BFD is down"), bgp.BFDDown),
			[]Event{
				{"Warning", "PeerDown", "peer tor-a (10.1.1.1, AS 65002) of instance 65001 left Established: BFD is down"},
				{"Warning", "BFDDown", "peer tor-a (10.1.1.1, AS 65002) of instance 65001: BFD session Down, the BGP session is closed"},
			}},
		{"BFD still down, or coming up: nothing", withBFD(snap(key, bgp.StateActive, time.Time{}, ""), bgp.BFDDown), withBFD(snap(key, bgp.StateActive, time.Time{}, ""), bgp.BFDInit), nil},
		{"BFD turned off: nothing", withBFD(snap(key, bgp.StateEstablished, t0, ""), bgp.BFDUp), snap(key, bgp.StateEstablished, t0, ""), nil},
		{"up and down again between snapshots: the drop count tells", snap(key, bgp.StateActive, time.Time{}, ""),
			withDrops(snap(key, bgp.StateActive, time.Time{}, "hold-timer-expired"), 1),
			[]Event{{"Warning", "PeerDown", "peer tor-a (10.1.1.1, AS 65002) of instance 65001 left Established: hold-timer-expired"}}},
		{"still down, no new drop: nothing", withDrops(snap(key, bgp.StateActive, time.Time{}, "x"), 1),
			withDrops(snap(key, bgp.StateActive, time.Time{}, "x"), 1), nil},
		{"held down", snap(key, bgp.StateActive, time.Time{}, ""), heldDown(snap(key, bgp.StateIdle, time.Time{}, ""), 1),
			[]Event{{"Warning", "MaxPrefixExceeded", "peer tor-a (10.1.1.1, AS 65002) of instance 65001 held down: " + held}}},
		{"still the same hold-down: nothing", heldDown(snap(key, bgp.StateIdle, time.Time{}, ""), 1),
			heldDown(snap(key, bgp.StateIdle, time.Time{}, ""), 1), nil},
		{"retried and held down again between snapshots: the count tells", heldDown(snap(key, bgp.StateIdle, time.Time{}, ""), 1),
			heldDown(snap(key, bgp.StateIdle, time.Time{}, ""), 2),
			[]Event{{"Warning", "MaxPrefixExceeded", "peer tor-a (10.1.1.1, AS 65002) of instance 65001 held down: " + held}}},
		{"held down no longer: nothing", heldDown(snap(key, bgp.StateIdle, time.Time{}, ""), 1),
			snap(key, bgp.StateActive, time.Time{}, ""), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, PeerEvents(tc.prev, tc.cur)); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
		})
	}
}

func withDrops(s map[bgp.InstanceKey]speakers.InstanceSnapshot, n uint64) map[bgp.InstanceKey]speakers.InstanceSnapshot {
	for k, inst := range s {
		for name, p := range inst.Peers {
			p.Status.Drops = n
			inst.Peers[name] = p
		}
		s[k] = inst
	}
	return s
}

func withBFD(s map[bgp.InstanceKey]speakers.InstanceSnapshot, state bgp.BFDState) map[bgp.InstanceKey]speakers.InstanceSnapshot {
	for _, inst := range s {
		for name, p := range inst.Peers {
			p.Status.BFDState = state
			inst.Peers[name] = p
		}
	}
	return s
}
