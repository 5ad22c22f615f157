package agent_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"kbgp.io/kbgp/internal/agent"
	"kbgp.io/kbgp/internal/bgp/bgpfake"
	"kbgp.io/kbgp/internal/testing/wait"
)

// lockedBuffer is a log destination the test reads while the agent writes to it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestAgentLogsCachesSyncedOnce: the start-up's end of the cache phase is one log
// line, written once however many reconciles follow (the B1s benchmark times it).
func TestAgentLogsCachesSyncedOnce(t *testing.T) {
	ensureNamespace(t)
	const node = "agent-node-synced"
	create(t, testNode(node), nodeConfig(node, peer("tor-a", addrA, 65010, "")))
	var logs lockedBuffer
	routers := &bgpfake.Factory{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- agent.Run(ctx, server.Config, agent.Options{NodeName: node, Namespace: namespace, MetricsAddress: "0",
			HealthProbeAddress: "0", StatusInterval: 200 * time.Millisecond, Routers: routers, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("agent stopped with %v", err)
		}
	}()
	r := speaker(t, routers)
	wait.Eventually(t, 30*time.Second, "peer configured", func() bool { _, ok := r.Peer(addrA); return ok })
	// More reconciles: a Service event is one.
	svc := externalService("synced", "10.0.9.1", false)
	svc.Namespace = namespace
	create(t, svc)
	time.Sleep(time.Second)
	if n := strings.Count(logs.String(), `msg="caches synced"`); n != 1 {
		t.Fatalf("%d \"caches synced\" lines, want 1:\n%s", n, logs.String())
	}
}
