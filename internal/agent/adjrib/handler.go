// Package adjrib serves what each peer of the node is sent and sent it, from the
// speakers' Adj-RIBs (adjribapi): the truth an operator needs when a router lacks a
// route, where `kubectl bgp routes --computed` only recomputes it. The agent serves it
// on its metrics listener, behind the same authentication and authorisation as
// /metrics (--metrics-secure).
package adjrib

import (
	"encoding/json"
	"net/http"
)

// Handler answers GET adjribapi.Path: a page of one side of the node's peers' routes
// (400 for a query it cannot read). kernel is nil when the agent installs no routes.
func Handler(src Source, kernel Kernel, node string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			w.Header().Set("Allow", http.MethodGet)
			http.Error(w, "only GET", http.StatusMethodNotAllowed)
			return
		}
		q, err := parseQuery(r.URL.Query())
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(page(r.Context(), src, kernel, node, q))
	})
}
