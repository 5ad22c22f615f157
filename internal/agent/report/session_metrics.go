package report

import (
	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/metrics"
	"kbgp.io/kbgp/internal/speakers"
)

// afiLabels are the afi label values of the route metrics.
var afiLabels = map[bgp.Family]string{bgp.FamilyIPv4Unicast: "ipv4", bgp.FamilyIPv6Unicast: "ipv6"}

// peerSamples turns a snapshot into the per-peer metric samples, and gives every peer
// of the node config that does not run (its Secret, VRF device or peer config is
// missing, or it could not be added) an Idle sample: a session that never started is
// down, and kbgp_session_state must say so for the session alerts to fire.
func peerSamples(nc *kbgpv1.BGPNodeConfig, snap map[bgp.InstanceKey]speakers.InstanceSnapshot) []metrics.PeerSample {
	var out []metrics.PeerSample
	if nc != nil {
		for _, inst := range nc.Spec.BGPInstances {
			for _, p := range inst.AllPeers() {
				key := bgp.InstanceKey{LocalASN: uint32(inst.LocalASN), VRF: p.VRF}
				if _, running := snap[key].Peers[p.Name]; !running {
					out = append(out, metrics.PeerSample{LocalASN: key.LocalASN, Peer: p.Name, VRF: p.VRF, State: string(bgp.StateIdle)})
				}
			}
		}
	}
	for key, inst := range snap {
		for name, p := range inst.Peers {
			s := metrics.PeerSample{
				LocalASN: key.LocalASN, Peer: name, VRF: key.VRF, State: string(p.Status.State),
				Advertised: map[string]int{}, Received: map[string]uint64{},
			}
			for f, n := range p.AdvertisedByFamily {
				s.Advertised[afiLabels[f]] = n
			}
			for f, n := range p.Status.ReceivedByFamily {
				s.Received[afiLabels[f]] = n
			}
			out = append(out, s)
		}
	}
	return out
}
