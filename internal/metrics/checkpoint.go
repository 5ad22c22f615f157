package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

var checkpointWriteFailing = prometheus.NewGauge(prometheus.GaugeOpts{
	Name: "kbgp_checkpoint_write_failing",
	Help: "1 while the agent's last checkpoint write into --state-dir failed (it is retried): a start from the checkpoint would restore older state.",
})

func init() {
	metrics.Registry.MustRegister(checkpointWriteFailing)
}

// SetCheckpointWriteFailing says whether the last checkpoint write failed.
func SetCheckpointWriteFailing(failing bool) {
	v := 0.0
	if failing {
		v = 1
	}
	checkpointWriteFailing.Set(v)
}
