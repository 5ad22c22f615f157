package agent_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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

// TestStartBuildsOnce: an agent starting with Services already there builds the node's
// configuration once. Every Service's event and the whole node's are queued when the
// caches sync; the first request builds everything, and the others, which that build
// covered, are dropped: no second full build, no Service set again.
func TestStartBuildsOnce(t *testing.T) {
	const services = 300
	// Names of their own per run (-count).
	run := strconv.FormatInt(time.Now().UnixNano()%1e9, 36)
	node, ns := "agent-node-builds-once-"+run, "svc-start-once-"+run
	ensureNamespace(t)
	ctx := context.Background()
	if err := server.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	pc, ad := externalIPSetup("start-once-"+run, inNamespace(ns), "100.65.0.0/16")
	create(t, testNode(node), pc, ad)
	for i := range services {
		svc := externalService(fmt.Sprintf("s-%d", i), fmt.Sprintf("100.65.%d.%d", i/250, i%250+1), false)
		svc.Namespace = ns
		create(t, svc)
	}
	create(t, nodeConfig(node, peer("tor", addrA, 65010, "start-once-"+run)))

	var logs lockedBuffer
	routers := &bgpfake.Factory{}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- agent.Run(runCtx, server.Config, agent.Options{NodeName: node, Namespace: namespace, MetricsAddress: "0",
			HealthProbeAddress: "0", StatusInterval: 200 * time.Millisecond, Routers: routers,
			Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("agent stopped with %v", err)
		}
	}()
	r := speaker(t, routers)
	wait.Eventually(t, 30*time.Second, fmt.Sprintf("%d prefixes advertised", services), func() bool { return len(r.Advertised(addrA)) == services })
	time.Sleep(2 * time.Second) // the queue's rest, had it any work left
	out := logs.String()
	if n := strings.Count(out, `msg="built the node's BGP configuration"`); n != 1 {
		t.Errorf("%d full builds, want 1", n)
	}
	if n := strings.Count(out, `msg="setting Services"`); n != 0 {
		t.Errorf("%d Service requests set their Service again after the full build covered them, want none", n)
	}
}
