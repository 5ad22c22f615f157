package apiserver

import (
	"net/http"
	"strings"
	"sync"

	"k8s.io/client-go/rest"
)

// WriteCounter counts the API writes (POST, PUT, PATCH, DELETE) a client makes to kbgp
// resources, so tests can prove that a no-op costs zero writes. Leases and Events are
// not kbgp resources and are not counted.
type WriteCounter struct {
	mu     sync.Mutex
	writes []string
}

// Count returns the number of writes so far.
func (w *WriteCounter) Count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.writes)
}

// Writes returns "METHOD path" for each write so far.
func (w *WriteCounter) Writes() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.writes...)
}

// CountingConfig returns a copy of cfg whose requests are counted by the returned
// WriteCounter.
func CountingConfig(cfg *rest.Config) (*rest.Config, *WriteCounter) {
	w := &WriteCounter{}
	out := rest.CopyConfig(cfg)
	out.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			if req.Method != http.MethodGet && strings.Contains(req.URL.Path, "/apis/kbgp.io/") {
				w.mu.Lock()
				w.writes = append(w.writes, req.Method+" "+req.URL.Path)
				w.mu.Unlock()
			}
			return rt.RoundTrip(req)
		})
	})
	return out, w
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
