//go:build bench

// Package bench holds kbgp's benchmarks against the anchors of the design's
// performance document. They are slow and stay out of CI: run them with `make bench`.
package bench

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/operator"
	"kbgp.io/kbgp/internal/render"
	"kbgp.io/kbgp/test/apiserver"
)

// TestB5OperatorFanOut measures scenario B5: operator fan-out against the real API
// server with 1k and 5k Nodes.
func TestB5OperatorFanOut(t *testing.T) {
	log.SetLogger(logr.Discard())
	for _, n := range benchNodeCounts() {
		t.Run(fmt.Sprintf("nodes=%d", n), func(t *testing.T) { runB5(t, n) })
	}
}

// benchNodeCounts is 1k and 5k, or $KBGP_B5_NODES alone.
func benchNodeCounts() []int {
	if v := os.Getenv("KBGP_B5_NODES"); v != "" {
		n, err := strconv.Atoi(v)
		if err == nil {
			return []int{n}
		}
	}
	return []int{1000, 5000}
}

// benchWorkers is the operator's --node-workers, default 32, or $KBGP_B5_WORKERS.
func benchWorkers() int {
	if n, err := strconv.Atoi(os.Getenv("KBGP_B5_WORKERS")); err == nil {
		return n
	}
	return 32
}

func runB5(t *testing.T, nodes int) {
	server, err := apiserver.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Stop()
	cfg := rest.CopyConfig(server.Config)
	cfg.QPS, cfg.Burst = 1000, 2000
	c, err := client.New(cfg, client.Options{Scheme: server.Client.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	canary := nodes / 100
	createNodes(t, c, nodes, canary)
	// The canary config is older, so once it selects the canary nodes it wins them.
	mustCreate(t, c, benchConfig("canary", "canary", "v1", 65010))
	time.Sleep(1100 * time.Millisecond)
	mustCreate(t, c, benchConfig("fleet", "fleet", "yes", 65001))

	opCfg, writes := apiserver.CountingConfig(cfg)
	stop := startOperator(t, opCfg)
	cpu0, start := processCPU(), time.Now()
	waitRendered(t, c, "fleet", nodes, func(nc *kbgpv1.BGPNodeConfig) bool { return true })
	report(t, nodes, "initial render of every node", writes.Count(), nodes, time.Since(start), processCPU()-cpu0)

	w0, cpu0, start := writes.Count(), processCPU(), time.Now()
	updateConfig(t, c, "fleet", func(cc *kbgpv1.BGPClusterConfig) { cc.Spec.BGPInstances[0].Peers[0].PeerASN = 65099 })
	waitRendered(t, c, "fleet", nodes, func(nc *kbgpv1.BGPNodeConfig) bool {
		return nc.Spec.BGPInstances[0].Peers[0].PeerASN == 65099
	})
	report(t, nodes, "change touching all nodes (peer ASN)", writes.Count()-w0, nodes, time.Since(start), processCPU()-cpu0)

	w0, cpu0, start = writes.Count(), processCPU(), time.Now()
	updateConfig(t, c, "canary", func(cc *kbgpv1.BGPClusterConfig) { cc.Spec.NodeSelector.MatchLabels["canary"] = "v2" })
	waitRendered(t, c, "canary", canary, func(nc *kbgpv1.BGPNodeConfig) bool { return true })
	report(t, nodes, "change touching 1% (canary selector)", writes.Count()-w0, canary, time.Since(start), processCPU()-cpu0)
	stop()

	opCfg, writes = apiserver.CountingConfig(cfg)
	cpu0, start = processCPU(), time.Now()
	stop = startOperator(t, opCfg)
	time.Sleep(10 * time.Second)
	stop()
	report(t, nodes, "no-op resync (operator restart, 10 s window)", writes.Count(), 0, time.Since(start), processCPU()-cpu0)
}

// TestB5RenderCPU measures the pure render of every node config: selection, override
// and rendering, as the operator does per node.
func TestB5RenderCPU(t *testing.T) {
	const nodes = 5000
	configs := []kbgpv1.BGPClusterConfig{*benchConfig("fleet", "fleet", "yes", 65001), *benchConfig("canary", "canary", "v2", 65010)}
	labels := map[string]string{"fleet": "yes"}
	cpu0, start := processCPU(), time.Now()
	for i := range nodes {
		sels, _ := render.ParseSelectors(configs)
		winner := render.AssignNode(sels, labels).Winner
		render.NodeConfig(winner, render.Node{Name: fmt.Sprintf("node-%05d", i), UID: types.UID(fmt.Sprint(i))}, nil)
	}
	fmt.Printf("| render | %d nodes | %s wall | %s CPU |\n", nodes, time.Since(start).Round(time.Millisecond), (processCPU() - cpu0).Round(time.Millisecond))
}

func report(t *testing.T, nodes int, what string, writes, wantWrites int, wall, cpu time.Duration) {
	t.Helper()
	fmt.Printf("| %d | %s | %d writes (expected %d) | %s wall | %s operator-process CPU |\n",
		nodes, what, writes, wantWrites, wall.Round(time.Millisecond), cpu.Round(time.Millisecond))
}

func benchConfig(name, key, value string, asn int64) *kbgpv1.BGPClusterConfig {
	return &kbgpv1.BGPClusterConfig{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: kbgpv1.BGPClusterConfigSpec{
			NodeSelector: &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{key: kbgpv1.LabelValue(value)}},
			BGPInstances: []kbgpv1.BGPInstance{{
				BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: asn, RouterIDPool: "10.255.0.0/16"},
				Peers: []kbgpv1.BGPPeer{
					{Name: "tor-a", PeerAddress: "10.1.1.1", PeerASN: 65002, PeerConfigRef: &kbgpv1.PeerConfigReference{Name: "tor"}},
					{Name: "tor-b", PeerAddress: "2001:db8::1", PeerASN: 65002, PeerConfigRef: &kbgpv1.PeerConfigReference{Name: "tor"}},
				},
			}},
		},
	}
}

// createNodes creates the fleet with 32 parallel writers; the first `canary` nodes
// also carry canary=v2.
func createNodes(t *testing.T, c client.Client, n, canary int) {
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	next := make(chan int)
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				labels := map[string]string{"fleet": "yes"}
				if i < canary {
					labels["canary"] = "v2"
				}
				node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("node-%05d", i), Labels: labels}}
				if err := c.Create(context.Background(), node); err != nil {
					errs <- err
				}
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	fmt.Printf("| %d | baseline: create %d Nodes with 32 parallel writers | %d writes | %s wall | - |\n", n, n, n, elapsed.Round(time.Millisecond))
}

func mustCreate(t *testing.T, c client.Client, obj client.Object) {
	if err := c.Create(context.Background(), obj); err != nil {
		t.Fatal(err)
	}
}

func updateConfig(t *testing.T, c client.Client, name string, change func(*kbgpv1.BGPClusterConfig)) {
	for range 50 {
		var cc kbgpv1.BGPClusterConfig
		if err := c.Get(context.Background(), types.NamespacedName{Name: name}, &cc); err != nil {
			t.Fatal(err)
		}
		change(&cc)
		if err := c.Update(context.Background(), &cc); err == nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("could not update %s", name)
}

// waitRendered polls (every 250 ms, at most 5 minutes) until `want` node configs
// rendered from clusterConfig satisfy ok.
func waitRendered(t *testing.T, c client.Client, clusterConfig string, want int, ok func(*kbgpv1.BGPNodeConfig) bool) {
	deadline := time.Now().Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		var list kbgpv1.BGPNodeConfigList
		if err := c.List(context.Background(), &list, client.MatchingLabels{kbgpv1.ClusterConfigLabel: clusterConfig}); err != nil {
			t.Fatal(err)
		}
		done := 0
		for i := range list.Items {
			if ok(&list.Items[i]) {
				done++
			}
		}
		if done == want {
			return
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %d node configs from %s", want, clusterConfig)
}

func startOperator(t *testing.T, cfg *rest.Config) (stop func()) {
	return startOperatorWith(t, cfg, operator.Options{})
}

// startOperatorWith is startOperator with more options (the bench's own fill the rest).
func startOperatorWith(t *testing.T, cfg *rest.Config, o operator.Options) (stop func()) {
	o.MetricsAddress, o.HealthProbeAddress, o.NodeConfigWorkers, o.InProcessReplica = "0", "0", benchWorkers(), true
	mgr, err := operator.NewManager(cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	return func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}
