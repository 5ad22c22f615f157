//go:build bench

package bench

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"k8s.io/client-go/kubernetes"

	"kbgp.io/kbgp/test/apiserver"
)

// apiMetrics are what the API server says of its load at one moment.
type apiMetrics struct {
	// total counts every request served (apiserver_request_total); byKey by "VERB
	// resource[/subresource]"; status the writes of BGPNodeConfig status.
	total, status float64
	byKey         map[string]float64
	// watches are the watches open now (apiserver_longrunning_requests, verb WATCH).
	watches float64
	// watchEvents count the events sent to watchers (apiserver_watch_events_total),
	// nodeWatchEvents those of Nodes, watchBytes their size
	// (the sum of the histogram apiserver_watch_events_sizes).
	watchEvents, nodeWatchEvents, watchBytes float64
}

// scrapeAPIServer reads the API server's /metrics as the administrator.
func scrapeAPIServer(ctx context.Context, t *testing.T, server *apiserver.Server) apiMetrics {
	t.Helper()
	cs, err := kubernetes.NewForConfig(server.Config)
	if err != nil {
		t.Fatal(err)
	}
	body, err := cs.RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		t.Fatalf("API server metrics: %v", err)
	}
	m, err := parseAPIMetrics(body)
	if err != nil {
		t.Fatalf("API server metrics: %v", err)
	}
	return m
}

// parseAPIMetrics reads the metric families it needs from the Prometheus text format.
func parseAPIMetrics(text []byte) (apiMetrics, error) {
	var parser expfmt.TextParser
	families, err := parser.TextToMetricFamilies(bytes.NewReader(text))
	if err != nil {
		return apiMetrics{}, err
	}
	m := apiMetrics{byKey: map[string]float64{}}
	each := func(name string, f func(labels map[string]string, v float64)) {
		for _, metric := range families[name].GetMetric() {
			labels := map[string]string{}
			for _, l := range metric.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			v := metric.GetCounter().GetValue() + metric.GetGauge().GetValue() + metric.GetHistogram().GetSampleSum()
			f(labels, v)
		}
	}
	each("apiserver_request_total", func(labels map[string]string, v float64) {
		m.total += v
		key := labels["verb"] + " " + labels["resource"]
		if labels["subresource"] != "" {
			key += "/" + labels["subresource"]
		}
		m.byKey[key] += v
		if labels["resource"] == "bgpnodeconfigs" && labels["subresource"] == "status" && labels["verb"] != "GET" {
			m.status += v
		}
	})
	each("apiserver_longrunning_requests", func(labels map[string]string, v float64) {
		if labels["verb"] == "WATCH" {
			m.watches += v
		}
	})
	each("apiserver_watch_events_total", func(labels map[string]string, v float64) {
		m.watchEvents += v
		if labels["resource"] == "nodes" || labels["kind"] == "Node" {
			m.nodeWatchEvents += v
		}
	})
	// A histogram: its sum is the bytes of every event sent.
	each("apiserver_watch_events_sizes", func(_ map[string]string, v float64) { m.watchBytes += v })
	return m, nil
}

// topSince formats the k request kinds that grew most since before, each as rate(d).
func (m apiMetrics) topSince(before apiMetrics, k int, rate func(float64) float64) string {
	keys := slices.Collect(maps.Keys(m.byKey))
	slices.SortFunc(keys, func(a, b string) int {
		da, db := m.byKey[a]-before.byKey[a], m.byKey[b]-before.byKey[b]
		switch {
		case da > db:
			return -1
		case da < db:
			return 1
		}
		return strings.Compare(a, b)
	})
	var out []string
	for _, key := range keys[:min(k, len(keys))] {
		if d := m.byKey[key] - before.byKey[key]; d > 0 {
			out = append(out, fmt.Sprintf("%s %.1f", key, rate(d)))
		}
	}
	return strings.Join(out, ", ")
}
