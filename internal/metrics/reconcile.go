// Package metrics holds kbgp's Prometheus metrics, registered with controller-runtime's
// registry so they are served on the manager's /metrics endpoint.
package metrics

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Reconcile results, the values of the result label.
const (
	resultSuccess = "success"
	resultError   = "error"
	resultRequeue = "requeue"
)

var (
	reconcileTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "kbgp_reconcile_total",
		Help: "Reconciles by result (success, error, requeue).",
	}, []string{"result"})
	reconcileDuration = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "kbgp_reconcile_duration_seconds",
		Help:    "Time spent in one reconcile.",
		Buckets: prometheus.ExponentialBuckets(0.0005, 2, 16),
	})
)

func init() {
	metrics.Registry.MustRegister(reconcileTotal, reconcileDuration)
}

// Instrument wraps r so every reconcile is counted and timed.
func Instrument(r reconcile.Reconciler) reconcile.Reconciler { return InstrumentTyped(r) }

// InstrumentTyped is Instrument for a controller with a request type of its own.
func InstrumentTyped[request comparable](r reconcile.TypedReconciler[request]) reconcile.TypedReconciler[request] {
	return reconcile.TypedFunc[request](func(ctx context.Context, req request) (reconcile.Result, error) {
		start := time.Now()
		res, err := r.Reconcile(ctx, req)
		reconcileDuration.Observe(time.Since(start).Seconds())
		switch {
		case err != nil:
			reconcileTotal.WithLabelValues(resultError).Inc()
		case !res.IsZero():
			reconcileTotal.WithLabelValues(resultRequeue).Inc()
		default:
			reconcileTotal.WithLabelValues(resultSuccess).Inc()
		}
		return res, err
	})
}
