//go:build bench

package bench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/log"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/test/apiserver"
	"kbgp.io/kbgp/test/e2e/netlab"
)

// b1sGoal is B1s's: from process start to the last UPDATE at the peer, kbgp's agent
// within BIRD's time in the same run.
const b1sGoal = 1.0

// TestB1sFromProcessStart measures scenario B1s: the routes ($KBGP_B1S_ROUTES, a
// comma-separated list of sizes, default 10000) exist before the speaker's process
// does (kbgp: Services and the advertisement in the API server; BIRD: a protocol
// static in its configuration) and FRR keeps its neighbors active; then, one speaker
// at a time, the process is started and the benchmark times, from the start, the
// phases the peer and the agent show: caches synced (the agent's "caches synced" log
// line), the session's TCP connection (its SYN on the wire, and who sent it: the
// speaker dials, or FRR's own attempts reach a speaker that listens), Established
// (FRR's first KEEPALIVE on the wire), the first and the last
// UPDATE on the wire, and FRR holding every prefix. Between passes FRR shuts the
// session down, drops the routes, and the process is stopped; passes alternate
// between kbgp and BIRD ($KBGP_BENCH_PASSES, default 3), so that each sees the same
// load, and medians are reported.
func TestB1sFromProcessStart(t *testing.T) {
	log.SetLogger(logr.Discard())
	for _, routes := range b1sSizes(t) {
		t.Run(strconv.Itoa(routes), func(t *testing.T) { b1sRun(t, routes) })
	}
}

// b1sSizes is $KBGP_B1S_ROUTES (multiples of bulkServices), default 10000.
func b1sSizes(t *testing.T) []int {
	v := os.Getenv("KBGP_B1S_ROUTES")
	if v == "" {
		return []int{10_000}
	}
	var sizes []int
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < bulkServices || n%bulkServices != 0 {
			t.Fatalf("KBGP_B1S_ROUTES: %q is not a multiple of %d", f, bulkServices)
		}
		sizes = append(sizes, n)
	}
	return sizes
}

// startPhases are a pass's times from process start.
type startPhases struct {
	synced, connect, established, firstUpdate, lastUpdate, full time.Duration
	updates, speakerDials                                       int
	// dialer is who opened the session's TCP connection: the speaker or FRR.
	dialer string
}

// syncedText is the caches-synced phase, "-" for a speaker without one (BIRD).
func (p startPhases) syncedText() string {
	if p.synced == 0 {
		return "-"
	}
	return ms(p.synced)
}

func b1sRun(t *testing.T, routes int) {
	server, err := apiserver.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Stop()
	l := newPeerLab(t, false, "kbgp", "bird")
	addrs := hostAddrs(bulkStart, routes)
	t.Logf("B1s: %d routes, load average %s at start", routes, loadAvg())

	kbgpNodeObjects(t, server, l)
	createExternalIPServices(t, server.Client, "bulk", addrs, len(addrs)/bulkServices)
	mustCreate(t, server.Client, serviceAdvertisement(kbgpv1.ServiceExternalIP))
	agent := newAgentLauncher(t, server, l.lab, l.speakers["kbgp"].ns, "bench-node")
	birdConf := birdBulkConfig(l, addrs)

	// start starts a speaker's process and returns how to read when its caches synced
	// (kbgp only) and how to stop it.
	start := map[string]func() (synced func() time.Time, stop func() error){
		"kbgp": func() (func() time.Time, func() error) {
			a := agent.start()
			saved := a.cpuProfile(t, fmt.Sprintf("b1s-%d-cpu-%d.prof", routes, time.Now().UnixMilli()), 20*time.Second)
			return func() time.Time { return cachesSynced(t, a.proc) }, func() error { saved(); return a.proc.Stop() }
		},
		"bird": func() (func() time.Time, func() error) {
			b := netlab.StartBIRD(l.speakers["bird"].ns, birdConf)
			return nil, b.Stop
		},
	}
	speakers := []string{"kbgp", "bird"}
	phases := map[string][]startPhases{}
	for pass := range benchPasses() {
		for _, name := range speakers {
			addr := l.speakers[name].addr
			before, err := sampleNeighbor(l.frr, addr.String())
			if err != nil {
				t.Fatal(err)
			}
			load := loadAvg()
			capture := startCapture(t, l.frr.Namespace(), "to-"+name)
			t0 := time.Now()
			synced, stop := start[name]()
			ft := watchFullTable(t, l.frr, addr.String(), routes, before.updates, 5*time.Minute)
			wire := capture.stop(t, addr)
			p := startPhases{connect: wire.connect.Sub(t0), dialer: "FRR", established: wire.established.Sub(t0), firstUpdate: wire.firstUpdate.Sub(t0),
				lastUpdate: wire.lastUpdate.Sub(t0), full: ft.full.Sub(t0), updates: wire.updates, speakerDials: wire.speakerDials}
			if wire.speakerDialed {
				p.dialer = name
			}
			if synced != nil {
				p.synced = synced().Sub(t0)
			}
			phases[name] = append(phases[name], p)
			t.Logf("pass %d %-4s from process start: caches synced %s, TCP connection %s (opened by %s; the speaker dialed %d times), Established %s, first UPDATE %s, last UPDATE %s (%d UPDATEs), FRR holds all %s; load %s",
				pass+1, name, p.syncedText(), ms(p.connect), p.dialer, p.speakerDials, ms(p.established), ms(p.firstUpdate), ms(p.lastUpdate), p.updates, ms(p.full), load)
			l.down(t, name)
			if err := stop(); err != nil {
				t.Fatal(err)
			}
			l.up(t, name)
		}
	}

	t.Logf("B1s results (%d routes, %d passes; load average %s at the end), medians from process start:", routes, benchPasses(), loadAvg())
	t.Logf("| speaker | caches synced | TCP connection (opened by) | Established | first UPDATE | last UPDATE (spread) | FRR holds all | UPDATEs |")
	t.Logf("|---|---|---|---|---|---|---|---|")
	last := map[string]durations{}
	for _, name := range speakers {
		col := func(f func(startPhases) time.Duration) durations {
			var d durations
			for _, p := range phases[name] {
				d = append(d, f(p))
			}
			return d
		}
		synced := startPhases{synced: col(func(p startPhases) time.Duration { return p.synced }).median()}.syncedText()
		last[name] = col(func(p startPhases) time.Duration { return p.lastUpdate })
		var updates []int
		var dialers []string
		for _, p := range phases[name] {
			updates, dialers = append(updates, p.updates), append(dialers, p.dialer)
		}
		t.Logf("| %s | %s | %s (%s) | %s | %s | %s (%s) | %s | %v |", name, synced,
			ms(col(func(p startPhases) time.Duration { return p.connect }).median()), strings.Join(dialers, ", "),
			ms(col(func(p startPhases) time.Duration { return p.established }).median()),
			ms(col(func(p startPhases) time.Duration { return p.firstUpdate }).median()),
			ms(last[name].median()), last[name].spread(),
			ms(col(func(p startPhases) time.Duration { return p.full }).median()), updates)
	}
	ratio := float64(last["kbgp"].median()) / float64(last["bird"].median())
	reportGoal(t, "B1s", fmt.Sprintf("process start → last UPDATE of %d routes ≤ %.1f× BIRD", routes, b1sGoal), ratio <= b1sGoal,
		"%.2f× (%s vs %s, medians)", ratio, ms(last["kbgp"].median()), ms(last["bird"].median()))
}

// cachesSynced is the time of the agent's "caches synced" log line (JSON, log/slog).
func cachesSynced(t *testing.T, p *netlab.Process) time.Time {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(p.Log()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var line struct {
			Time time.Time `json:"time"`
			Msg  string    `json:"msg"`
		}
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "caches synced" {
			return line.Time
		}
	}
	t.Fatalf("no \"caches synced\" line in the agent's log:\n%s", p.Log())
	return time.Time{}
}
