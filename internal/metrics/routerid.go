package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// Router-ID resolution results, the values of the result label.
const (
	RouterIDSuccess = "success"
	RouterIDFailure = "failure"
)

var (
	routerIDResolutions = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "kbgp_router_id_resolution_total",
		Help: "Router-ID resolutions by result (success, failure). Reusing a locked router ID is not a resolution.",
	}, []string{"result"})
	routerIDResolutionDuration = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "kbgp_router_id_resolution_duration_seconds",
		Help:    "Time spent resolving router IDs, Node fetch included.",
		Buckets: prometheus.ExponentialBuckets(0.0001, 4, 10),
	})
	routerIDSource = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "kbgp_router_id_source",
		Help: "BGP instances whose router ID in use came from each source (explicit, template, node-ipv4, hash-from-node-name).",
	}, []string{"source"})
)

func init() {
	metrics.Registry.MustRegister(routerIDResolutions, routerIDResolutionDuration, routerIDSource)
}

// ObserveRouterIDResolution counts one resolution (result is RouterIDSuccess or
// RouterIDFailure) and records how long the resolution step took.
func ObserveRouterIDResolution(result string, took time.Duration) {
	routerIDResolutions.WithLabelValues(result).Inc()
	routerIDResolutionDuration.Observe(took.Seconds())
}

// RouterIDSources is one agent's share of kbgp_router_id_source. Several agents can
// share a process (kbgp-lab), so each adds only the difference to its last counts.
type RouterIDSources struct {
	counts map[string]int
}

// Set records that the agent's instances now use these sources, counted.
func (s *RouterIDSources) Set(counts map[string]int) {
	for src, n := range s.counts {
		routerIDSource.WithLabelValues(src).Sub(float64(n))
	}
	for src, n := range counts {
		routerIDSource.WithLabelValues(src).Add(float64(n))
	}
	s.counts = counts
}
