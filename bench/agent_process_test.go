//go:build bench

package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"kbgp.io/kbgp/test/apiserver"
	"kbgp.io/kbgp/test/e2e/netlab"
)

// agentProcess is `kbgp agent` running inside a node namespace, reaching the API
// server through a Unix-socket relay (the approach of test/e2e/agent_process_test.go):
// the speaker under test runs as in production, as its own process with its own heap,
// so its RSS and CPU time can be read from /proc.
type agentProcess struct {
	proc *netlab.Process
	ns   *netlab.Namespace
}

// buildKbgp builds `kbgp` from this checkout into dir: the tree the test binary was
// compiled in (server.RepoRoot), whatever directory it runs in. An A/B comparison
// needs a test binary compiled in each tree.
func buildKbgp(t *testing.T, server *apiserver.Server, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "kbgp")
	build := exec.Command("go", "build", "-o", bin, "./cmd/kbgp")
	build.Dir = server.RepoRoot
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build kbgp: %v\n%s", err, out)
	}
	return bin
}

// startAgent starts `kbgp agent` for node inside ns, with its metrics on
// 127.0.0.1:9080 inside the namespace.
func startAgent(t *testing.T, server *apiserver.Server, lab *netlab.Lab, ns *netlab.Namespace, node string) *agentProcess {
	t.Helper()
	return newAgentLauncher(t, server, lab, ns, node).start()
}

// agentLauncher starts the agent of one node, built and given its kubeconfig once, as
// often as a benchmark needs a fresh process (B1s times each start).
type agentLauncher struct {
	ns   *netlab.Namespace
	env  []string
	argv []string
}

// newAgentLauncher builds kbgp and writes the node's kubeconfig. The relay listens on
// 127.0.0.1, for which the test API server's certificate is valid.
func newAgentLauncher(t *testing.T, server *apiserver.Server, lab *netlab.Lab, ns *netlab.Namespace, node string) *agentLauncher {
	t.Helper()
	bin := buildKbgp(t, server, t.TempDir())
	kubeconfig, _ := lab.RelayedKubeconfig(ns, server.Config.Host, node, func(path string) error {
		return server.WriteKubeconfig(path, "agent-"+node)
	})
	// $KBGP_BENCH_AGENT_GOGC is the agent's GOGC: its memory against its CPU.
	var env []string
	if v := os.Getenv("KBGP_BENCH_AGENT_GOGC"); v != "" {
		env = append(env, "GOGC="+v)
	}
	return &agentLauncher{ns: ns, env: env, argv: []string{bin, "agent", "--kubeconfig", kubeconfig, "--node-name", node,
		"--namespace", benchNamespace, "--metrics-bind-address", "127.0.0.1:9080", "--health-probe-bind-address", "127.0.0.1:9081",
		"--pprof-bind-address", "127.0.0.1:9082"}}
}

// start starts one agent process.
func (l *agentLauncher) start() *agentProcess {
	return &agentProcess{proc: l.ns.StartEnv("kbgp-agent", l.env, l.argv...), ns: l.ns}
}

// reconcileTotals reads kbgp_reconcile_duration_seconds' sum and count from the
// agent's metrics endpoint: with them a run says how much of its time the agent spent
// recomputing its desired state.
func (a *agentProcess) reconcileTotals(t *testing.T) (sum time.Duration, count int) {
	t.Helper()
	out, err := a.ns.ExecTimeout(10*time.Second, "curl", "-sf", "http://127.0.0.1:9080/metrics")
	if err != nil {
		t.Fatalf("agent metrics: %v: %s", err, out)
	}
	if m := reconcileSumRe.FindStringSubmatch(out); m != nil {
		s, _ := strconv.ParseFloat(m[1], 64)
		sum = time.Duration(s * float64(time.Second))
	}
	if m := reconcileCountRe.FindStringSubmatch(out); m != nil {
		count, _ = strconv.Atoi(m[1])
	}
	return sum, count
}

var (
	reconcileSumRe   = regexp.MustCompile(`(?m)^kbgp_reconcile_duration_seconds_sum (\S+)$`)
	reconcileCountRe = regexp.MustCompile(`(?m)^kbgp_reconcile_duration_seconds_count (\d+)$`)
)

// usage is the agent's CPU time and resident set now.
func (a *agentProcess) usage() (cpu time.Duration, rss int64) {
	rss, _, _ = procRSS(a.proc.PID())
	return procCPU(a.proc.PID()), rss
}

// gcCounters are the bytes the agent has allocated since it started and the
// collections it has run, from its metrics: between two readings they say how much
// garbage a piece of work made and how many collections it paid for.
func (a *agentProcess) gcCounters(t *testing.T) (allocated float64, collections int) {
	t.Helper()
	out, err := a.ns.ExecTimeout(10*time.Second, "curl", "-sf", "http://127.0.0.1:9080/metrics")
	m, c := allocatedRe.FindStringSubmatch(out), collectionsRe.FindStringSubmatch(out)
	if err != nil || m == nil || c == nil {
		t.Errorf("agent GC counters: %v: %.200s", err, out)
		return 0, 0
	}
	allocated, _ = strconv.ParseFloat(m[1], 64)
	collections, _ = strconv.Atoi(c[1])
	return allocated, collections
}

var (
	allocatedRe   = regexp.MustCompile(`(?m)^go_memstats_alloc_bytes_total (\S+)$`)
	collectionsRe = regexp.MustCompile(`(?m)^go_gc_duration_seconds_count (\d+)$`)
)

// memStats logs where the agent's memory is, as the Go runtime counts it: with the
// resident set it tells the live heap from the heap Go keeps above it (GOGC's headroom,
// freed spans not yet returned) and from the rest.
func (a *agentProcess) memStats(t *testing.T, when string) {
	t.Helper()
	out, err := a.ns.ExecTimeout(10*time.Second, "curl", "-sf", "http://127.0.0.1:9080/metrics")
	if err != nil {
		t.Errorf("agent metrics: %v: %s", err, out)
		return
	}
	var parts []string
	for _, m := range memStatRe.FindAllStringSubmatch(out, -1) {
		v, _ := strconv.ParseFloat(m[2], 64)
		parts = append(parts, fmt.Sprintf("%s %.1f MiB", m[1], v/(1<<20)))
	}
	t.Logf("kbgp agent memory %s: %s", when, strings.Join(parts, ", "))
}

var memStatRe = regexp.MustCompile(`(?m)^go_memstats_(heap_alloc|heap_inuse|heap_idle|heap_released|next_gc|stack_inuse|sys)_bytes (\S+)$`)

// liveHeap is the agent's live heap: its HeapAlloc right after a collection, which
// the pprof endpoint forces before it writes the heap profile with the runtime's
// MemStats (debug=1). Unlike the resident set it holds no garbage, so it does not
// depend on when the agent last collected.
func (a *agentProcess) liveHeap(t *testing.T) int64 {
	t.Helper()
	out, err := a.ns.ExecTimeout(time.Minute, "curl", "-sf", "http://127.0.0.1:9082/debug/pprof/heap?gc=1&debug=1")
	m := heapAllocRe.FindStringSubmatch(out)
	if err != nil || m == nil {
		t.Errorf("agent live heap: %v: %.200s", err, out)
		return 0
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	return n
}

var heapAllocRe = regexp.MustCompile(`(?m)^# HeapAlloc = (\d+)$`)

// heapProfile saves the agent's live heap, after a collection, as
// $KBGP_BENCH_PROFILE_DIR/name when that is set (read it with `go tool pprof -top`).
func (a *agentProcess) heapProfile(t *testing.T, name string) {
	a.saveProfile(t, name, "heap?gc=1")
}

// allocsProfile saves what the agent has allocated since it started, as
// $KBGP_BENCH_PROFILE_DIR/name when that is set: two of them tell what a piece of work
// allocated (`go tool pprof -sample_index=alloc_space -base before after`). It runs a
// collection first (the profile is as of a collection, up to two behind without it),
// which changes when the agent collects next.
func (a *agentProcess) allocsProfile(t *testing.T, name string) {
	a.saveProfile(t, name, "heap?gc=1")
}

// saveProfile saves the agent's pprof profile of path as $KBGP_BENCH_PROFILE_DIR/name
// when that is set.
func (a *agentProcess) saveProfile(t *testing.T, name, path string) {
	dir := os.Getenv("KBGP_BENCH_PROFILE_DIR")
	if dir == "" {
		return
	}
	file := filepath.Join(dir, name)
	if out, err := a.ns.ExecTimeout(time.Minute, "curl", "-sf", "-o", file, "http://127.0.0.1:9082/debug/pprof/"+path); err != nil {
		t.Errorf("agent profile %s: %v: %s", path, err, out)
		return
	}
	t.Logf("agent profile %s: %s", path, file)
}

// cpuProfile saves a CPU profile of the agent's next d, from as soon as its pprof
// endpoint answers, as $KBGP_BENCH_PROFILE_DIR/name when that is set; the returned
// wait blocks until it is saved. B1s reads where a start's time goes, B1 where a
// bulk's does.
func (a *agentProcess) cpuProfile(t *testing.T, name string, d time.Duration) (wait func()) {
	dir := os.Getenv("KBGP_BENCH_PROFILE_DIR")
	if dir == "" {
		return func() {}
	}
	path := filepath.Join(dir, name)
	url := fmt.Sprintf("http://127.0.0.1:9082/debug/pprof/profile?seconds=%d", int(d.Seconds()))
	done := make(chan struct{})
	go func() {
		defer close(done)
		// A shell loop, not curl's --retry: curl waits a second before its first retry,
		// and a start at 100k routes is past its first build by then.
		out, err := a.ns.ExecTimeout(d+time.Minute, "sh", "-c",
			`for i in $(seq 2000); do curl -sf -o "$1" "$2" && exit 0; sleep 0.005; done; exit 1`, "profile", path, url)
		if err != nil {
			t.Errorf("agent CPU profile: %v: %s", err, out)
			return
		}
		t.Logf("agent CPU profile of %s: %s", d, path)
	}()
	return func() { <-done }
}

// profile samples the agent's CPU with perf(1) when $KBGP_BENCH_PERF is set (see
// perfRecord).
func (a *agentProcess) profile(t *testing.T, name string) (stop func() string) {
	return perfRecord(t, a.proc.PID(), name)
}

// perfRecord samples process pid's CPU with perf(1) when $KBGP_BENCH_PERF is set, until
// the returned stop is called; stop returns perf's report: the functions with at least
// 3% of the samples, their callees included, which says where a scenario's time goes.
// perf's data is kept as $KBGP_BENCH_PROFILE_DIR/name when that is set, for a closer
// look (perf report -i). Without $KBGP_BENCH_PERF stop returns "".
func perfRecord(t *testing.T, pid int, name string) (stop func() string) {
	if os.Getenv("KBGP_BENCH_PERF") == "" {
		return func() string { return "" }
	}
	dir := os.Getenv("KBGP_BENCH_PROFILE_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	data := filepath.Join(dir, name)
	// 1999 Hz: a bulk pass is a few hundred milliseconds of CPU.
	rec := exec.Command("perf", "record", "-q", "-F", "1999", "-g", "-p", strconv.Itoa(pid), "-o", data)
	if err := rec.Start(); err != nil {
		t.Fatalf("perf record: %v", err)
	}
	return func() string {
		_ = rec.Process.Signal(os.Interrupt)
		_ = rec.Wait()
		out, err := exec.Command("perf", "report", "-i", data, "--stdio", "--children", "--sort", "sym",
			"-g", "none", "--percent-limit", "3").CombinedOutput()
		if err != nil {
			t.Errorf("perf report: %v: %s", err, out)
		}
		return string(out)
	}
}
