package agent

import (
	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/metrics"
	"kbgp.io/kbgp/internal/speakers"
)

// afiLabels are the afi label values of the route metrics.
var afiLabels = map[bgp.Family]string{bgp.FamilyIPv4Unicast: "ipv4", bgp.FamilyIPv6Unicast: "ipv6"}

// peerSamples turns a snapshot into the per-peer metric samples.
func peerSamples(snap map[bgp.InstanceKey]speakers.InstanceSnapshot) []metrics.PeerSample {
	var out []metrics.PeerSample
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
