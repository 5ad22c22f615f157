//go:build bench

package bench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
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
// Agents that would need more open files than one process may hold run in child
// processes (meshGroups); $KBGP_MESH_PROCESSES asks for at least that many processes.
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

// meshNamespace is the agents' namespace (their Leases).
const meshNamespace = "kbgp-bench-mesh"

func runMeshConvergence(t *testing.T, n int) {
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
	if err := server.EnsureNamespace(ctx, meshNamespace); err != nil {
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
	op, err := operator.NewManager(cfg, operator.Options{MetricsAddress: "0", HealthProbeAddress: "0", InProcessReplica: true, AgentNamespace: meshNamespace})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() { _ = op.Start(ctx) })
	statusInterval := envDuration(t, "KBGP_MESH_STATUS_INTERVAL", time.Second)
	here, groups := meshGroups(t, n)
	runMeshAgents(ctx, &wg, cfg, 0, here, statusInterval, t.TempDir())
	var children []*meshChild
	if len(groups) > 0 {
		kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
		if err := server.WriteKubeconfig(kubeconfig, "mesh-agents"); err != nil {
			t.Fatal(err)
		}
		for _, g := range groups {
			children = append(children, startMeshChild(t, kubeconfig, g[0], g[1], statusInterval))
		}
	}
	defer wg.Wait()
	defer cancel()
	defer func() {
		for _, ch := range children {
			ch.stop(t)
		}
	}()
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
	rss := rssBytes() - rss0
	heap := ms.HeapInuse - ms0.HeapInuse
	for _, ch := range children {
		rss += ch.rss()
	}
	t.Logf("MESH nodes=%d sessions=%d status-interval=%s processes=%d: converged in %s; heap of this process's %d agents +%d MiB (%d KiB a node), RSS of all agents +%d MiB (%d KiB a node), %d goroutines here; %d status lists failed; load %s",
		n, n*(n-1)/2, statusInterval, 1+len(children), took.Round(100*time.Millisecond), here, heap>>20, heap/uint64(here)>>10, rss>>20, rss/uint64(n)>>10, runtime.NumGoroutine(), slowLists, loadAverage())
}

// meshGroups splits n agents between this process and child processes by open files:
// a mesh node holds n-1 sessions, and every session of the mesh has both its ends
// among the agents, so a process of m agents needs about m(n-1) sockets. The hard
// limit here is 20,000 and cannot be raised without CAP_SYS_RESOURCE: 200 nodes in one
// process (39,800 sockets) stopped at 18,718 session ends. here are the agents this
// process runs (0..here-1); groups the [first, count] of each child.
func meshGroups(t *testing.T, n int) (here int, groups [][2]int) {
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	if lim.Cur < lim.Max {
		lim.Cur = lim.Max
		if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
			t.Fatal(err)
		}
	}
	// 20 files a node besides its sessions (API connections, listeners, state), and
	// 2,000 for the API server's clients and the operator.
	perProcess := max(1, (int(lim.Cur)-2000)/(n-1+20))
	procs := (n + perProcess - 1) / perProcess
	if v, err := strconv.Atoi(os.Getenv("KBGP_MESH_PROCESSES")); err == nil && v > procs {
		procs = v
	}
	size := (n + procs - 1) / procs
	here = min(n, size)
	for first := here; first < n; first += size {
		groups = append(groups, [2]int{first, min(size, n-first)})
	}
	return here, groups
}

// runMeshAgents starts the agents of nodes first..first+count-1 in this process.
func runMeshAgents(ctx context.Context, wg *sync.WaitGroup, cfg *rest.Config, first, count int, statusInterval time.Duration, stateDir string) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	for i := first; i < first+count; i++ {
		name := fmt.Sprintf("mesh-%03d", i)
		dir := filepath.Join(stateDir, name)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			panic(err) // a temporary directory of the test's own
		}
		wg.Go(func() {
			_ = agent.Run(ctx, cfg, agent.Options{NodeName: name, Namespace: meshNamespace, MetricsAddress: "0",
				HealthProbeAddress: "0", Routers: bgpgobgp.Factory{Logger: quiet}, Logger: quiet, StatusInterval: statusInterval,
				StateDir: dir})
		})
	}
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

// rssBytes is this process's resident set size.
func rssBytes() uint64 {
	rss, _, _ := procRSS(os.Getpid())
	return uint64(rss)
}
