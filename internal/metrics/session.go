package metrics

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/sanitize"
)

var (
	sessionState = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "kbgp_session_state",
		Help: "1 for the state each BGP session is in, 0 for the other states.",
	}, []string{"instance", "peer", "vrf", "state"})
	routesAdvertised = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "kbgp_routes_advertised",
		Help: "Prefixes sent to each peer, by address family (ipv4, ipv6).",
	}, []string{"instance", "peer", "afi"})
	routesReceived = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "kbgp_routes_received",
		Help: "Prefixes received from each peer (counted, never imported), by address family.",
	}, []string{"instance", "peer", "afi"})
	statusWrites = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "kbgp_status_writes_total",
		Help: "BGPNodeConfig status writes the agent made.",
	})
)

func init() {
	metrics.Registry.MustRegister(sessionState, routesAdvertised, routesReceived, statusWrites)
}

// CountStatusWrite counts one status write.
func CountStatusWrite() { statusWrites.Inc() }

// PeerSample is one peer's state as the metrics see it. Names come from users and are
// sanitised here.
type PeerSample struct {
	LocalASN   uint32
	Peer, VRF  string
	State      string
	Advertised map[string]int    // by afi: "ipv4", "ipv6"
	Received   map[string]uint64 // by afi
}

type peerKey struct {
	instance, peer, vrf string
}

// Sessions is one agent's share of the per-peer metrics: it sets the series of the
// peers it runs and deletes those of peers that went away, so cardinality follows the
// configuration (6 states and 2 families per peer).
type Sessions struct {
	last map[peerKey]struct{}
}

// Update replaces the agent's series with samples.
func (s *Sessions) Update(samples []PeerSample) {
	cur := make(map[peerKey]struct{}, len(samples))
	for _, p := range samples {
		k := peerKey{strconv.FormatUint(uint64(p.LocalASN), 10), sanitize.Line(p.Peer), sanitize.Line(p.VRF)}
		cur[k] = struct{}{}
		for _, st := range bgp.SessionStates {
			v := 0.0
			if string(st) == p.State {
				v = 1
			}
			sessionState.WithLabelValues(k.instance, k.peer, k.vrf, string(st)).Set(v)
		}
		for _, afi := range []string{"ipv4", "ipv6"} {
			routesAdvertised.WithLabelValues(k.instance, k.peer, afi).Set(float64(p.Advertised[afi]))
			routesReceived.WithLabelValues(k.instance, k.peer, afi).Set(float64(p.Received[afi]))
		}
	}
	for k := range s.last {
		if _, ok := cur[k]; ok {
			continue
		}
		for _, st := range bgp.SessionStates {
			sessionState.DeleteLabelValues(k.instance, k.peer, k.vrf, string(st))
		}
		for _, afi := range []string{"ipv4", "ipv6"} {
			routesAdvertised.DeleteLabelValues(k.instance, k.peer, afi)
			routesReceived.DeleteLabelValues(k.instance, k.peer, afi)
		}
	}
	s.last = cur
}
