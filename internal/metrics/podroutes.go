package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

var (
	podRoutesInstalled = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "kbgp_pod_routes_installed",
		Help: "Routes to other nodes' pod CIDRs the agent installed in the node's kernel (importPodRoutes).",
	})
	podRoutesRejected = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "kbgp_pod_routes_rejected_total",
		Help: "Received routes of importing peers not installed, by reason (outside-pod-ranges, not-a-node-pod-cidr, own-pod-cidr, no-next-hop, local-next-hop, non-unicast-next-hop, foreign-route).",
	}, []string{"reason"})
	podRoutesFailed = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "kbgp_pod_routes_failed",
		Help: "Pod routes whose last install or removal in the kernel failed; they are retried with backoff.",
	})
)

func init() {
	metrics.Registry.MustRegister(podRoutesInstalled, podRoutesRejected, podRoutesFailed)
}

// SetPodRoutesInstalled sets how many pod routes are in the kernel.
func SetPodRoutesInstalled(n int) { podRoutesInstalled.Set(float64(n)) }

// PodRouteRejected counts one received route not installed.
func PodRouteRejected(reason string) { podRoutesRejected.WithLabelValues(reason).Inc() }

// SetPodRoutesFailed sets how many pod routes wait for a retry.
func SetPodRoutesFailed(n int) { podRoutesFailed.Set(float64(n)) }
