//go:build bench

package bench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"golang.org/x/sys/unix"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/agent"
	bgpgobgp "kbgp.io/kbgp/internal/bgp/gobgp"
	"kbgp.io/kbgp/internal/operator"
	"kbgp.io/kbgp/test/apiserver"
)

// TestMeshConvergence measures a full mesh of n simulated nodes: the operator and n
// agents in this process against one API server, each node on its own loopback
// address (127.0.x.y, port 1790), announcing its pod CIDR. Convergence: from the
// cluster config's creation until every node's status has n-1 Established mesh
// sessions, each having received the peer's pod CIDR (status writes at most every
// second add up to a second). Memory: the process's Go heap and RSS once converged,
// per node. $KBGP_MESH_NODES picks the sizes (default 50); $KBGP_MESH_CPUPROFILE, a
// file, gets a CPU profile of the first three minutes after the cluster config's
// creation. Progress (nodes converged, sessions Established) is logged every 30 s.
// $KBGP_MESH_STATUS_INTERVAL sets the agents' status interval (default 1s) and
// $KBGP_MESH_DEADLINE the time allowed to converge (default 15m): at 200 nodes every
// status carries 199 peers, and one API server on the shared cores timed out every
// list of them once the agents wrote them each second.
func TestMeshConvergence(t *testing.T) {
	log.SetLogger(logr.Discard())
	sizes := []int{50}
	if v := os.Getenv("KBGP_MESH_NODES"); v != "" {
		sizes = nil
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(f)
			if err != nil {
				t.Fatal(err)
			}
			sizes = append(sizes, n)
		}
	}
	for _, n := range sizes {
		t.Run(fmt.Sprintf("nodes=%d", n), func(t *testing.T) { runMeshConvergence(t, n) })
	}
}

func runMeshConvergence(t *testing.T, n int) {
	raiseOpenFiles(t, uint64(n*(n-1)+200*n+4096))
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
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const ns = "kbgp-bench-mesh"
	if err := server.EnsureNamespace(ctx, ns); err != nil {
		t.Fatal(err)
	}
	sel := &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"adv": "mesh"}}
	mustCreate(t, c, &kbgpv1.BGPPeerConfig{ObjectMeta: metav1.ObjectMeta{Name: "mesh"}, Spec: kbgpv1.BGPPeerConfigSpec{
		Transport: &kbgpv1.BGPTransport{PeerPort: ptr.To[int32](1790)},
		// GoBGP's default hold time, not the e2e's 9 s: n agents share the process's
		// CPU, and on a loaded machine a starved speaker's keepalives come late; with
		// 9 s the 100-node mesh lost its sessions to hold-time expiry faster than it
		// built them (bench/RESULTS.md).
		Timers:   &kbgpv1.BGPTimers{ConnectRetryTimeSeconds: ptr.To[int32](1), HoldTimeSeconds: ptr.To[int32](90), KeepAliveTimeSeconds: ptr.To[int32](30)},
		Families: []kbgpv1.BGPFamily{{AFI: kbgpv1.AFIIPv4, SAFI: kbgpv1.SAFIUnicast, Advertisements: sel}},
	}})
	mustCreate(t, c, &kbgpv1.BGPAdvertisement{ObjectMeta: metav1.ObjectMeta{Name: "mesh", Labels: map[string]string{"adv": "mesh"}},
		Spec: kbgpv1.BGPAdvertisementSpec{Advertisements: []kbgpv1.Advertisement{{AdvertisementType: kbgpv1.AdvertisementPodCIDR}}}})
	for i := range n {
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("mesh-%03d", i), Labels: map[string]string{"mesh": "yes"},
			Annotations: map[string]string{"rid": fmt.Sprintf("10.1.%d.%d", i/250, 1+i%250)}},
			Spec: corev1.NodeSpec{PodCIDRs: []string{fmt.Sprintf("10.%d.%d.0/24", 100+i/250, i%250)}}}
		mustCreate(t, c, node)
		node.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: fmt.Sprintf("127.0.%d.%d", 1+i/250, 1+i%250)}}
		if err := c.Status().Update(ctx, node); err != nil {
			t.Fatal(err)
		}
	}

	var ms0 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	rss0 := rssBytes()
	op, err := operator.NewManager(cfg, operator.Options{MetricsAddress: "0", HealthProbeAddress: "0", InProcessReplica: true, AgentNamespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() { _ = op.Start(ctx) })
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	statusInterval := envDuration(t, "KBGP_MESH_STATUS_INTERVAL", time.Second)
	for i := range n {
		wg.Go(func() {
			_ = agent.Run(ctx, cfg, agent.Options{NodeName: fmt.Sprintf("mesh-%03d", i), Namespace: ns, MetricsAddress: "0",
				HealthProbeAddress: "0", Routers: bgpgobgp.Factory{Logger: quiet}, Logger: quiet, StatusInterval: statusInterval,
				StateDir: t.TempDir()})
		})
	}
	defer wg.Wait()
	defer cancel()
	time.Sleep(5 * time.Second) // agents up, with no node config yet

	start := time.Now()
	mustCreate(t, c, &kbgpv1.BGPClusterConfig{ObjectMeta: metav1.ObjectMeta{Name: "mesh"}, Spec: kbgpv1.BGPClusterConfigSpec{
		NodeSelector: &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"mesh": "yes"}},
		BGPInstances: []kbgpv1.BGPInstance{{
			BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: 64512, RouterID: "${node.annotations['rid']}", LocalPort: ptr.To[int32](1790)},
			Mesh:                &kbgpv1.BGPMesh{Enabled: true, PeerConfigRef: &kbgpv1.PeerConfigReference{Name: "mesh"}},
		}},
	}})
	if path := os.Getenv("KBGP_MESH_CPUPROFILE"); path != "" {
		stop := cpuProfile(t, path)
		timer := time.AfterFunc(3*time.Minute, stop)
		defer func() { timer.Stop(); stop() }()
	}
	var done, established, slowLists int
	lastLog := start
	for deadline := start.Add(envDuration(t, "KBGP_MESH_DEADLINE", 15*time.Minute)); ; time.Sleep(time.Second) {
		var err error
		if done, established, err = convergedNodes(ctx, c, n); err != nil {
			slowLists++ // an API server busy with n agents' status writes times a list out
		}
		if done == n {
			break
		}
		if time.Since(lastLog) >= 30*time.Second {
			lastLog = time.Now()
			if err != nil {
				t.Logf("after %s: listing the node configs failed (%d lists so far): %v; load %s",
					time.Since(start).Round(time.Second), slowLists, err, loadAverage())
			} else {
				t.Logf("after %s: %d of %d nodes converged, %d of %d session ends Established; load %s",
					time.Since(start).Round(time.Second), done, n, established, n*(n-1), loadAverage())
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d nodes converged after %s", done, n, time.Since(start))
		}
	}
	took := time.Since(start)
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	rss := rssBytes()
	heap := ms.HeapInuse - ms0.HeapInuse
	t.Logf("MESH nodes=%d sessions=%d status-interval=%s: converged in %s; heap +%d MiB (%d KiB a node), RSS +%d MiB (%d KiB a node), %d goroutines; %d status lists failed; load %s",
		n, n*(n-1)/2, statusInterval, took.Round(100*time.Millisecond), heap>>20, heap/uint64(n)>>10, (rss-rss0)>>20, (rss-rss0)/uint64(n)>>10, runtime.NumGoroutine(), slowLists, loadAverage())
}

// convergedNodes counts the nodes whose status has n-1 Established mesh sessions,
// each having received one route, and the Established mesh sessions in all statuses
// (each session twice, once a node).
func convergedNodes(ctx context.Context, c client.Client, n int) (done, established int, err error) {
	var list kbgpv1.BGPNodeConfigList
	if err := c.List(ctx, &list); err != nil {
		return 0, 0, err
	}
	for _, nc := range list.Items {
		ok := 0
		for _, inst := range nc.Status.BGPInstances {
			for _, p := range inst.Peers {
				if p.MeshRole != "" && p.PeeringState == kbgpv1.PeeringStateEstablished {
					established++
					if p.RoutesReceived == 1 {
						ok++
					}
				}
			}
		}
		if ok == n-1 {
			done++
		}
	}
	return done, established, nil
}

// raiseOpenFiles lets the process hold want files: every session of the mesh has both
// its ends in this process, so 200 nodes need 39,800 sockets for the sessions alone
// (the machine's default limit, 20,000, stopped a run at 18,718 session ends).
func raiseOpenFiles(t *testing.T, want uint64) {
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	if lim.Cur >= want {
		return
	}
	lim.Cur, lim.Max = want, max(lim.Max, want)
	if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatalf("raising the open files limit to %d: %v", want, err)
	}
}

// envDuration reads a duration from the environment variable name, def when unset.
func envDuration(t *testing.T, name string, def time.Duration) time.Duration {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		t.Fatalf("%s=%q: want a positive duration", name, v)
	}
	return d
}

// cpuProfile starts a CPU profile into path; the function it returns stops it (once).
func cpuProfile(t *testing.T, path string) func() {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	return func() { once.Do(func() { pprof.StopCPUProfile(); _ = f.Close() }) }
}

// loadAverage is /proc/loadavg's first three fields.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

// rssBytes is the process's resident set size from /proc/self/status.
func rssBytes() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
