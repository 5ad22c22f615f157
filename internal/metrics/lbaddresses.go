package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"kbgp.io/kbgp/internal/sanitize"
)

var lbAddresses = prometheus.NewGaugeVec(prometheus.GaugeOpts{
	Name: "kbgp_lb_addresses",
	Help: "Addresses of each LoadBalancerIPPool by family (ipv4, ipv6) and state (used, free); free saturates at 2^63-1.",
}, []string{"pool", "family", "state"})

func init() {
	metrics.Registry.MustRegister(lbAddresses)
}

// SetPoolAddresses sets one pool family's used and free addresses.
func SetPoolAddresses(pool, family string, total, used int64) {
	pool = sanitize.Line(pool)
	lbAddresses.WithLabelValues(pool, family, "used").Set(float64(used))
	lbAddresses.WithLabelValues(pool, family, "free").Set(float64(total - used))
}

// DeletePool removes a deleted pool's series.
func DeletePool(pool string) {
	lbAddresses.DeletePartialMatch(prometheus.Labels{"pool": sanitize.Line(pool)})
}
