package agent_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"kbgp.io/kbgp/internal/agent"
	"kbgp.io/kbgp/internal/bgp/bgpfake"
)

// freeLoopbackAddr is a loopback address with a port free at the time of the call, for
// an endpoint of the agent under test.
func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// TestPprofServesWhenAsked: with PprofAddress (--pprof-bind-address) the agent serves
// Go's heap profile there, which the benchmarks read.
func TestPprofServesWhenAsked(t *testing.T) {
	ensureNamespace(t)
	const node = "pprof"
	create(t, testNode(node), nodeConfig(node))
	addr := freeLoopbackAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- agent.Run(ctx, server.Config, agent.Options{NodeName: node, Namespace: namespace, MetricsAddress: "0", HealthProbeAddress: "0",
			PprofAddress: addr, Routers: &bgpfake.Factory{}, Logger: slog.New(slog.NewTextHandler(logWriter{t}, nil))})
	}()
	t.Cleanup(func() { cancel(); <-done })

	var body string
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/debug/pprof/heap?debug=1")
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if body = string(b); resp.StatusCode == http.StatusOK && strings.Contains(body, "heap profile") {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no heap profile at %s within 30 s: %v %q", addr, err, body)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
