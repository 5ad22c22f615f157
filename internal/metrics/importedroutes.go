package metrics

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// PeerImport is one importing peer's routes: in the node's kernel via its next hop,
// and refused (by its import rules, its import cap, or a route kbgp did not install).
type PeerImport struct {
	Address             string
	Installed, Rejected int
}

var (
	peerRoutesInstalled = prometheus.NewDesc("kbgp_peer_routes_installed",
		"Routes an importing peer sent that are in the node's kernel via its next hop (importPodRoutes, import).", []string{"address"}, nil)
	peerRoutesRejected = prometheus.NewDesc("kbgp_peer_routes_rejected",
		"Routes an importing peer sent that are not installed: refused by importPodRoutes' rules or the import policy, past import.maxRoutes, or a route kbgp did not install in the way.", []string{"address"}, nil)

	importsMu sync.Mutex
	imports   func() []PeerImport
)

// importCollector reads the importing peers' counts at scrape time: they change with
// every UPDATE, and counting them then would cost every UPDATE a pass over the table.
type importCollector struct{}

func (importCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- peerRoutesInstalled
	ch <- peerRoutesRejected
}

func (importCollector) Collect(ch chan<- prometheus.Metric) {
	importsMu.Lock()
	read := imports
	importsMu.Unlock()
	if read == nil {
		return
	}
	for _, p := range read() {
		ch <- prometheus.MustNewConstMetric(peerRoutesInstalled, prometheus.GaugeValue, float64(p.Installed), p.Address)
		ch <- prometheus.MustNewConstMetric(peerRoutesRejected, prometheus.GaugeValue, float64(p.Rejected), p.Address)
	}
}

func init() {
	metrics.Registry.MustRegister(importCollector{})
}

// SetPeerImports makes read the source of the per-peer import gauges (the agent's
// route installer; the last one set in a process of several agents).
func SetPeerImports(read func() []PeerImport) {
	importsMu.Lock()
	imports = read
	importsMu.Unlock()
}
