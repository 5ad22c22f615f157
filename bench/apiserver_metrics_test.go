//go:build bench

package bench

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

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
	// (apiserver_watch_events_sizes_sum).
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
	return parseAPIMetrics(string(body))
}

// parseAPIMetrics reads the two metric families of the Prometheus text format it needs.
func parseAPIMetrics(text string) apiMetrics {
	m := apiMetrics{byKey: map[string]float64{}}
	for _, line := range strings.Split(text, "\n") {
		name, rest, ok := strings.Cut(line, "{")
		if !ok {
			continue
		}
		labelText, valueText, ok := strings.Cut(rest, "} ")
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(valueText), 64)
		if err != nil {
			continue
		}
		labels := promLabels(labelText)
		switch name {
		case "apiserver_request_total":
			m.total += v
			key := labels["verb"] + " " + labels["resource"]
			if labels["subresource"] != "" {
				key += "/" + labels["subresource"]
			}
			m.byKey[key] += v
			if labels["resource"] == "bgpnodeconfigs" && labels["subresource"] == "status" && labels["verb"] != "GET" {
				m.status += v
			}
		case "apiserver_longrunning_requests":
			if labels["verb"] == "WATCH" {
				m.watches += v
			}
		case "apiserver_watch_events_total":
			m.watchEvents += v
			if labels["resource"] == "nodes" || labels["kind"] == "Node" {
				m.nodeWatchEvents += v
			}
		case "apiserver_watch_events_sizes_sum":
			m.watchBytes += v
		}
	}
	return m
}

// promLabels splits `a="x",b="y"` (no escaped quotes in these metrics' labels).
func promLabels(s string) map[string]string {
	out := map[string]string{}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if ok {
			out[k] = strings.Trim(v, `"`)
		}
	}
	return out
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
