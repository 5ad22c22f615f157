//go:build bench

package bench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/agent"
	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/bgp/bgpfake"
	"kbgp.io/kbgp/internal/operator"
	"kbgp.io/kbgp/test/apiserver"
)

// B10 fleet simulation: the numbers for one peer on every node.
const (
	b10Namespace = "kbgp-bench-fleet"
	b10ASN       = 64512
	b10PeerASN   = 64513
	// b10HoldBefore and b10HoldAfter are the peer config's hold time before and after
	// the cluster-wide change.
	b10HoldBefore = 90 * time.Second
	b10HoldAfter  = 60 * time.Second
)

// b10Peer is every node's one peer (a documentation-free range of 100.64.0.0/10, never
// on any link: the speakers are in memory).
var b10Peer = netip.MustParseAddr("100.127.255.1")

// TestB10Fleet simulates a fleet: the operator and n agents — the real agent code, each
// with its own client certificate (user "kbgp-agent:<node>") and user agent, each with
// an in-memory speaker (bgpfake) — in this process against one real API server. It
// measures, from the API server's own metrics (apiserver_request_total,
// apiserver_longrunning_requests):
//   - API requests per second and open watches with the fleet at rest;
//   - the time from one BGPPeerConfig change (its hold time) to each node's speaker
//     having it (p50, p99, last), from a fleet at rest;
//   - status writes per second during a flap storm (every node's session down and up
//     once a second), after the change so that the storm's backlog does not delay it;
//   - the API server's resident memory.
//
// Skipped unless $KBGP_B10_NODES lists the fleet sizes ("100,1000"): a fleet of a
// thousand agents takes the machine for minutes. $KBGP_B10_REST is the at-rest window
// (default 60s), $KBGP_B10_STORM the flap storm's (default 30s), $KBGP_B10_UP how long
// the agents may take to come up (default 15m), $KBGP_B10_START_RATE how many start a
// second (default 50). $KBGP_BENCH_HEAPPROFILE receives this process's live heap (the
// operator and every agent) once the fleet has settled.
func TestB10Fleet(t *testing.T) {
	v := os.Getenv("KBGP_B10_NODES")
	if v == "" {
		t.Skip("set KBGP_B10_NODES (e.g. 100,1000) to simulate fleets")
	}
	log.SetLogger(logr.Discard())
	var rows []string
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(fmt.Sprintf("nodes=%d", n), func(t *testing.T) { rows = append(rows, runB10(t, n)) })
	}
	t.Logf("B10 fleet (load average at the start of each size's measures):")
	t.Logf("| nodes | agents up (all have the peer) | API requests/s at rest (top) | watches at rest | watch events/s at rest | CPU at rest, cores: fleet / API server | status writes/s in the flap storm (per node) | peer config change → speakers p50 / p99 / last | API server RSS | test process RSS a node | load |")
	t.Logf("|---|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range rows {
		t.Logf("%s", r)
	}
}

func runB10(t *testing.T, n int) string {
	server, err := apiserver.Start()
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	stopServer := func() { once.Do(func() { _ = server.Stop() }) }
	defer stopServer()
	// A test that runs out of -timeout panics without running its defers: stop the
	// API server and etcd half a minute before, so that they never outlive the test.
	if deadline, ok := t.Deadline(); ok {
		watchdog := time.AfterFunc(time.Until(deadline)-30*time.Second, stopServer)
		defer watchdog.Stop()
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	admin := rest.CopyConfig(server.Config)
	admin.QPS, admin.Burst = -1, 0
	c, err := client.New(admin, client.Options{Scheme: server.Client.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	if err := server.EnsureNamespace(ctx, b10Namespace); err != nil {
		t.Fatal(err)
	}
	b10Objects(t, c, n)

	opCfg := rest.CopyConfig(server.Config)
	opCfg.QPS, opCfg.Burst, opCfg.UserAgent = 200, 400, "kbgp-operator"
	op, err := operator.NewManager(opCfg, operator.Options{MetricsAddress: "0", HealthProbeAddress: "0", InProcessReplica: true, AgentNamespace: b10Namespace})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	wg.Go(func() { _ = op.Start(ctx) })

	rss0 := rssBytes()
	start := time.Now()
	fleet := startFleet(ctx, t, server, n, &wg)
	if err := fleet.wait(ctx, b10Duration("KBGP_B10_UP", 15*time.Minute), func(p bgp.Peer) bool { return p.Timers.HoldTime == b10HoldBefore }); err != nil {
		t.Fatalf("agents up: %v", err)
	}
	up := time.Since(start)
	t.Logf("n=%d: all %d speakers have the peer %s after the agents' start", n, n, up.Round(100*time.Millisecond))
	time.Sleep(10 * time.Second) // the start's status writes and first Lease renewals settle
	writeHeapProfile(t)
	load := loadAvg()

	// At rest: nothing changes but the Leases and, as the kubelets do, each Node's status
	// once a report period.
	window := b10Duration("KBGP_B10_REST", time.Minute)
	apiPID := childPID("kube-apiserver")
	m0, cpu0, apiCPU0 := scrapeAPIServer(ctx, t, server), processCPU(), procCPU(apiPID)
	reports := reportNodeStatus(ctx, t, c, n, b10Duration("KBGP_B10_NODE_STATUS", 5*time.Minute), window)
	m1, cpu1, apiCPU1 := scrapeAPIServer(ctx, t, server), processCPU(), procCPU(apiPID)
	perSec := func(d float64) float64 { return d / window.Seconds() }
	restRate := perSec(m1.total - m0.total)
	top := m1.topSince(m0, 4, perSec)
	rest := b10Rest{
		events: perSec(m1.watchEvents - m0.watchEvents), nodeEvents: perSec(m1.nodeWatchEvents - m0.nodeWatchEvents),
		bytes: perSec(m1.watchBytes - m0.watchBytes), reports: perSec(float64(reports)),
		fleetCPU: perSec((cpu1 - cpu0).Seconds()), apiCPU: perSec((apiCPU1 - apiCPU0).Seconds()),
	}
	t.Logf("n=%d at rest over %s: %.1f requests/s (%s); %.0f watches open; %s", n, window, restRate, top, m1.watches, rest)

	// One cluster-wide change: the peer config's hold time.
	changed := time.Now()
	var pc kbgpv1.BGPPeerConfig
	if err := c.Get(ctx, client.ObjectKey{Name: "fleet"}, &pc); err != nil {
		t.Fatal(err)
	}
	pc.Spec.Timers.HoldTimeSeconds = ptr.To(int32(b10HoldAfter / time.Second))
	if err := c.Update(ctx, &pc); err != nil {
		t.Fatal(err)
	}
	var took durations
	if err := fleet.waitEach(ctx, 10*time.Minute, func(p bgp.Peer) bool { return p.Timers.HoldTime == b10HoldAfter }, func(at time.Time) {
		took = append(took, at.Sub(changed))
	}); err != nil {
		t.Errorf("peer config change: %v", err)
	}
	t.Logf("n=%d peer config change → speakers: p50 %s, p99 %s, last %s (%d of %d)", n, ms(took.median()), ms(took.quantile(0.99)), ms(took.quantile(1)), len(took), n)

	// Flap storm: status writes.
	storm := b10Duration("KBGP_B10_STORM", 30*time.Second)
	s0 := scrapeAPIServer(ctx, t, server)
	fleet.flap(storm)
	s1 := scrapeAPIServer(ctx, t, server)
	writes := (s1.status - s0.status) / storm.Seconds()
	t.Logf("n=%d flap storm over %s: %.1f status writes/s (%.3f a node), %.1f requests/s in all (%s)", n, storm, writes, writes/float64(n),
		(s1.total-s0.total)/storm.Seconds(), s1.topSince(s0, 4, func(d float64) float64 { return d / storm.Seconds() }))
	reportGoal(t, "B10", fmt.Sprintf("%d nodes, flap storm: ≤ 0.2 status writes/s a node (B6)", n), writes/float64(n) <= 0.2,
		"%.3f a node (load %s)", writes/float64(n), loadAvg())

	apiRSS, _, _ := procRSS(apiPID)
	perNode := (int64(rssBytes()) - int64(rss0)) / int64(n)
	t.Logf("n=%d API server RSS %d MiB; test process RSS +%d KiB a node, %d goroutines", n, apiRSS>>20, perNode>>10, runtime.NumGoroutine())
	return fmt.Sprintf("| %d | %s | %.1f (%s) | %.0f | %.1f (%.2f MB/s), Nodes %.1f from %.1f reports | %.2f / %.2f | %.1f (%.3f) | %s / %s / %s | %d MiB | %d KiB | %s |",
		n, up.Round(100*time.Millisecond), restRate, top, m1.watches, rest.events, rest.bytes/1e6, rest.nodeEvents, rest.reports, rest.fleetCPU, rest.apiCPU,
		writes, writes/float64(n), ms(took.median()), ms(took.quantile(0.99)), ms(took.quantile(1)), apiRSS>>20, perNode>>10, load)
}

// b10Rest is what the fleet at rest costs, per second of the window.
type b10Rest struct {
	// events and bytes are the watch events the API server sent (all kinds), nodeEvents
	// those of Nodes; reports the Node status writes of the simulated kubelets.
	events, nodeEvents, bytes, reports float64
	// fleetCPU is this process's CPU (the agents, the operator, the kubelets' writes),
	// apiCPU the API server's, in cores.
	fleetCPU, apiCPU float64
}

func (r b10Rest) String() string {
	return fmt.Sprintf("%.1f watch events/s (%.2f MB/s; Nodes %.1f/s from %.1f status reports/s); CPU: fleet %.2f cores, API server %.2f cores",
		r.events, r.bytes/1e6, r.nodeEvents, r.reports, r.fleetCPU, r.apiCPU)
}

// reportNodeStatus writes each Node's status once every period, for window, spread
// evenly, as kubelets do (nodeStatusReportFrequency, 5 minutes by default, renews the
// conditions' heartbeats when nothing else changed), and returns how many it wrote. A
// period far longer than the window ($KBGP_B10_NODE_STATUS=1000h) writes none.
// Every agent watches every Node (for the addresses it must never announce), so each
// write reaches n watchers.
func reportNodeStatus(ctx context.Context, t *testing.T, c client.Client, n int, period, window time.Duration) int {
	tick := time.NewTicker(period / time.Duration(n))
	defer tick.Stop()
	end := time.After(window)
	for written := 0; ; written++ {
		select {
		case <-end:
			return written
		case <-tick.C:
		}
		patch := fmt.Appendf(nil, `{"status":{"conditions":[{"type":"Ready","lastHeartbeatTime":%q}]}}`, time.Now().UTC().Format(time.RFC3339))
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: b10NodeName(written % n)}}
		if err := c.Status().Patch(ctx, node, client.RawPatch(types.StrategicMergePatchType, patch)); err != nil {
			t.Errorf("node status report: %v", err)
			return written
		}
	}
}

// b10Objects creates n Nodes (each with a router ID annotation and an InternalIP), the
// peer config, and the cluster config that gives every node the one peer.
func b10Objects(t *testing.T, c client.Client, n int) {
	ctx := context.Background()
	mustCreate(t, c, &kbgpv1.BGPPeerConfig{ObjectMeta: metav1.ObjectMeta{Name: "fleet"}, Spec: kbgpv1.BGPPeerConfigSpec{
		Timers: &kbgpv1.BGPTimers{HoldTimeSeconds: ptr.To(int32(b10HoldBefore / time.Second)), KeepAliveTimeSeconds: ptr.To[int32](30)},
	}})
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for w := range 32 {
		wg.Go(func() {
			for i := w; i < n; i += 32 {
				node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: b10NodeName(i), Labels: map[string]string{"fleet": "yes"},
					Annotations: map[string]string{"rid": fmt.Sprintf("10.%d.%d.%d", 1+i/65536, i/256%256, i%256)}}}
				if err := c.Create(ctx, node); err != nil {
					errs <- err
					return
				}
				node.Status = b10NodeStatus(i)
				if err := c.Status().Update(ctx, node); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	mustCreate(t, c, &kbgpv1.BGPClusterConfig{ObjectMeta: metav1.ObjectMeta{Name: "fleet"}, Spec: kbgpv1.BGPClusterConfigSpec{
		NodeSelector: &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"fleet": "yes"}},
		BGPInstances: []kbgpv1.BGPInstance{{
			BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: b10ASN, RouterID: "${node.annotations['rid']}"},
			Peers: []kbgpv1.BGPPeer{{Name: "tor", PeerAddress: b10Peer.String(), PeerASN: b10PeerASN,
				PeerConfigRef: &kbgpv1.PeerConfigReference{Name: "fleet"}}},
		}},
	}})
}

func b10NodeName(i int) string { return fmt.Sprintf("fleet-%05d", i) }

// b10NodeStatus is node i's status as a kubelet reports it, so that a Node's watch
// event weighs what it does in a cluster: its InternalIP and hostname, the four conditions, the
// node info and 20 images (kubelets report up to 50).
func b10NodeStatus(i int) corev1.NodeStatus {
	now := metav1.Now()
	st := corev1.NodeStatus{
		Addresses: []corev1.NodeAddress{
			{Type: corev1.NodeInternalIP, Address: fmt.Sprintf("10.%d.%d.%d", 1+i/65536, i/256%256, i%256)},
			{Type: corev1.NodeHostName, Address: b10NodeName(i)},
		},
		NodeInfo: corev1.NodeSystemInfo{MachineID: fmt.Sprintf("%032x", i), SystemUUID: fmt.Sprintf("%032x", i+1), BootID: fmt.Sprintf("%032x", i+2),
			KernelVersion: "6.1.0-28-amd64", OSImage: "Debian GNU/Linux 12 (bookworm)", ContainerRuntimeVersion: "containerd://1.6.20",
			KubeletVersion: "v1.34.4", OperatingSystem: "linux", Architecture: "amd64"},
	}
	for _, c := range []struct {
		kind   corev1.NodeConditionType
		status corev1.ConditionStatus
		reason string
	}{
		{corev1.NodeMemoryPressure, corev1.ConditionFalse, "KubeletHasSufficientMemory"},
		{corev1.NodeDiskPressure, corev1.ConditionFalse, "KubeletHasNoDiskPressure"},
		{corev1.NodePIDPressure, corev1.ConditionFalse, "KubeletHasSufficientPID"},
		{corev1.NodeReady, corev1.ConditionTrue, "KubeletReady"},
	} {
		st.Conditions = append(st.Conditions, corev1.NodeCondition{Type: c.kind, Status: c.status, Reason: c.reason,
			Message: "kubelet reports " + c.reason, LastHeartbeatTime: now, LastTransitionTime: now})
	}
	for j := range 20 {
		name := fmt.Sprintf("registry.example/team-%02d/app", j)
		st.Images = append(st.Images, corev1.ContainerImage{SizeBytes: int64(50+j) << 20,
			Names: []string{fmt.Sprintf("%s@sha256:%064x", name, j), name + ":v1." + strconv.Itoa(j)}})
	}
	return st
}

// fleetAgent is one simulated node: its agent's in-memory speaker factory.
type fleetAgent struct {
	node    string
	routers *bgpfake.Factory
}

type fleet []fleetAgent

// startFleet starts n agents, $KBGP_B10_START_RATE a second (default 50; a real
// fleet's agents do not all start in one second either), each with its own user and
// user agent.
func startFleet(ctx context.Context, t *testing.T, server *apiserver.Server, n int, wg *sync.WaitGroup) fleet {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	perSecond := max(1, envInt("KBGP_B10_START_RATE", 50))
	f := make(fleet, n)
	for i := range n {
		f[i] = fleetAgent{node: b10NodeName(i), routers: &bgpfake.Factory{}}
		cfg, err := server.UserConfig("kbgp-agent:"+f[i].node, "system:masters")
		if err != nil {
			t.Fatal(err)
		}
		// The agent binary's client limits (--kube-api-qps, --kube-api-burst).
		cfg.QPS, cfg.Burst, cfg.UserAgent = 200, 400, "kbgp-agent/"+f[i].node
		dir := t.TempDir()
		wg.Go(func() {
			if err := agent.Run(ctx, cfg, agent.Options{NodeName: f[i].node, Namespace: b10Namespace, MetricsAddress: "0",
				HealthProbeAddress: "0", Routers: f[i].routers, Logger: quiet, StateDir: dir}); err != nil && ctx.Err() == nil {
				t.Errorf("agent %s: %v", f[i].node, err)
			}
		})
		if i%perSecond == perSecond-1 {
			time.Sleep(time.Second)
		}
	}
	return f
}

// peer is the node's speaker's view of the one peer, if it has it.
func (a fleetAgent) peer() (bgp.Peer, bool) {
	r := a.routers.Router(bgp.InstanceKey{LocalASN: b10ASN})
	if r == nil {
		return bgp.Peer{}, false
	}
	return r.Peer(b10Peer)
}

// wait polls until every speaker has a peer that ok accepts.
func (f fleet) wait(ctx context.Context, limit time.Duration, ok func(bgp.Peer) bool) error {
	return f.waitEach(ctx, limit, ok, func(time.Time) {})
}

// waitEach polls every speaker every 50 ms until each has a peer that ok accepts, and
// calls seen with the time of the poll that first found it so.
func (f fleet) waitEach(ctx context.Context, limit time.Duration, ok func(bgp.Peer) bool, seen func(time.Time)) error {
	done := make([]bool, len(f))
	left := len(f)
	for deadline := time.Now().Add(limit); left > 0; time.Sleep(50 * time.Millisecond) {
		for i, a := range f {
			if done[i] {
				continue
			}
			if p, has := a.peer(); has && ok(p) {
				done[i] = true
				left--
				seen(time.Now())
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("%d of %d speakers after %s", len(f)-left, len(f), limit)
		}
	}
	return nil
}

// flap takes every node's session down and up again once a second for d: the status
// writer coalesces what it reports (at most one write per node per interval).
func (f fleet) flap(d time.Duration) {
	key := bgp.InstanceKey{LocalASN: b10ASN}
	for end := time.Now().Add(d); time.Now().Before(end); {
		for _, state := range []bgp.SessionState{bgp.StateIdle, bgp.StateEstablished} {
			for _, a := range f {
				if r := a.routers.Router(key); r != nil {
					r.SetState(b10Peer, state, "hold timer expired")
				}
			}
			time.Sleep(500 * time.Millisecond)
		}
	}
}

// b10Duration is $name as a duration, or def.
func b10Duration(name string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(os.Getenv(name)); err == nil && d > 0 {
		return d
	}
	return def
}

// childPID is the PID of this process's child named comm (envtest's kube-apiserver),
// 0 if there is none.
func childPID(comm string) int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	self := strconv.Itoa(os.Getpid())
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		// pid (comm) state ppid …
		s := string(stat)
		lp, rp := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if lp < 0 || rp < lp || s[lp+1:rp] != comm {
			continue
		}
		if fields := strings.Fields(s[rp+1:]); len(fields) > 1 && fields[1] == self {
			return pid
		}
	}
	return 0
}
