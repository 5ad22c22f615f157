//go:build bench

package bench

import (
	"fmt"
	"maps"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"k8s.io/client-go/rest"
)

// envInt is $name as an integer, or def when unset or unreadable.
func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return n
	}
	return def
}

// requestCounts counts a client's API requests by verb and resource ("PUT
// services/status", "WATCH services"), on its transport: what a scenario costs the API
// server, and where a client's rate limit goes.
type requestCounts struct {
	mu sync.Mutex
	n  map[string]int
}

// countRequests wraps cfg's transport with a fresh counter.
func countRequests(cfg *rest.Config) *requestCounts {
	c := &requestCounts{n: map[string]int{}}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return countingTransport{rt: rt, c: c}
	})
	return c
}

type countingTransport struct {
	rt http.RoundTripper
	c  *requestCounts
}

func (t countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	key := requestKey(req)
	t.c.mu.Lock()
	t.c.n[key]++
	t.c.mu.Unlock()
	return t.rt.RoundTrip(req)
}

// requestKey is "VERB resource[/subresource]" of an API request path
// (/api/v1/namespaces/ns/services/name/status → services/status).
func requestKey(req *http.Request) string {
	verb := req.Method
	if req.URL.Query().Get("watch") == "true" {
		verb = "WATCH"
	}
	parts := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
	// Drop the group and version: /api/v1/… or /apis/group/version/….
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		parts = parts[2:]
	case len(parts) >= 3 && parts[0] == "apis":
		parts = parts[3:]
	}
	if len(parts) >= 2 && parts[0] == "namespaces" && len(parts) != 2 {
		parts = parts[2:]
	}
	resource := ""
	if len(parts) > 0 {
		resource = parts[0]
	}
	if len(parts) == 3 {
		resource += "/" + parts[2]
	}
	return verb + " " + resource
}

// snapshot copies the counts so far.
func (c *requestCounts) snapshot() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.n)
}

// since formats the requests made after before, most frequent first.
func (c *requestCounts) since(before map[string]int) string {
	now := c.snapshot()
	keys := slices.Collect(maps.Keys(now))
	slices.SortFunc(keys, func(a, b string) int { return (now[b] - before[b]) - (now[a] - before[a]) })
	var out []string
	total := 0
	for _, k := range keys {
		if d := now[k] - before[k]; d > 0 {
			out = append(out, fmt.Sprintf("%s %d", k, d))
			total += d
		}
	}
	return fmt.Sprintf("%d (%s)", total, strings.Join(out, ", "))
}
