package status

import (
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/sanitize"
	"kbgp.io/kbgp/internal/speakers"
)

// Peer event reasons on the BGPNodeConfig.
const (
	EventPeerEstablished = "PeerEstablished"
	EventPeerDown        = "PeerDown"
	// EventMaxPrefixExceeded: the speaker holds a session down because the peer sent
	// more routes than its maxPrefixes allow.
	EventMaxPrefixExceeded = bgp.HeldDownMaxPrefixes
	// EventBFDDown: the peer's BFD session left Up; the speaker closes the BGP session
	// with it (PeerDown follows).
	EventBFDDown = "BFDDown"
)

// Event is one Kubernetes event to record on the node's BGPNodeConfig.
type Event struct {
	Type, Reason, Message string
}

// PeerEvents compares two snapshots of the speakers and returns the sessions that came
// up or went down in between. A session that went down and came back between the two
// (a new establishedTime or drop count) is both; one that came up and went down again
// between them (its drop count grew) is a PeerDown. Snapshots are taken at most once per status
// interval, so a flapping peer costs a few events, which the event recorder then
// aggregates further. A removed peer gets no event: its configuration went away.
func PeerEvents(prev, cur map[bgp.InstanceKey]speakers.InstanceSnapshot) []Event {
	var out []Event
	for _, key := range slices.SortedFunc(maps.Keys(cur), bgp.InstanceKey.Compare) {
		for _, name := range slices.Sorted(maps.Keys(cur[key].Peers)) {
			now := cur[key].Peers[name]
			was, known := prev[key].Peers[name]
			up := now.Status.State == bgp.StateEstablished
			wasUp := known && was.Status.State == bgp.StateEstablished
			// Dropped since the last snapshot, whatever the states at the two ends: a
			// session down at both but up in between, or up at both but new.
			dropped := known && now.Status.Drops > was.Status.Drops
			reconnected := up && wasUp && (dropped || !now.Status.EstablishedSince.Equal(was.Status.EstablishedSince))
			if (wasUp && !up) || reconnected || (!wasUp && !up && dropped) {
				out = append(out, Event{corev1.EventTypeWarning, EventPeerDown, peerDownMessage(key, name, now)})
			}
			if known && was.Status.BFDState == bgp.BFDUp && now.Status.BFDState != bgp.BFDUp && now.Status.BFDState != "" {
				out = append(out, Event{corev1.EventTypeWarning, EventBFDDown,
					fmt.Sprintf("%s: BFD session %s, the BGP session is closed", describePeer(key, name, now), now.Status.BFDState)})
			}
			// Once per hold-down: held now, and not before or held down again since.
			if now.Status.HeldDown != "" && (!known || was.Status.HeldDown == "" || now.Status.HeldDowns > was.Status.HeldDowns) {
				out = append(out, Event{corev1.EventTypeWarning, now.Status.HeldDown,
					fmt.Sprintf("%s held down: %s", describePeer(key, name, now), sanitize.Line(now.Status.HeldDownDetail))})
			}
			if (up && !wasUp) || reconnected {
				out = append(out, Event{corev1.EventTypeNormal, EventPeerEstablished, fmt.Sprintf("%s Established", describePeer(key, name, now))})
			}
		}
	}
	return out
}

func peerDownMessage(key bgp.InstanceKey, name string, p speakers.PeerSnapshot) string {
	msg := fmt.Sprintf("%s left Established", describePeer(key, name, p))
	if p.Status.LastDownReason != "" {
		msg += ": " + sanitize.Line(p.Status.LastDownReason)
	}
	return msg
}

func describePeer(key bgp.InstanceKey, name string, p speakers.PeerSnapshot) string {
	s := fmt.Sprintf("peer %s (%s, AS %d) of instance %d", sanitize.Line(name), p.Peer.Address, p.Peer.ASN, key.LocalASN)
	if key.VRF != "" {
		s += " in VRF " + sanitize.Line(key.VRF)
	}
	return s
}
