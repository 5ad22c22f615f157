//go:build bench

package bench

import (
	"fmt"
	"net/netip"
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

// The design's B2 goals: p99 end to end, the 100k/10k ratio, UPDATEs per prefix under
// bursts.
const (
	b2P99Goal       = 100 * time.Millisecond
	b2RatioGoal     = 1.2
	b2UpdatesGoal   = 0.05
	b2LBServices    = 50
	b2WaitPerChange = 3 * time.Minute
)

// b2Step is one rate of single changes and how many are made at it.
type b2Step struct {
	rate    float64
	changes int
}

// b2Steps are 1, 100 and 1000 changes/s; $KBGP_BENCH_B2_RATES ("1,100") picks some.
func b2Steps() []b2Step {
	all := []b2Step{{1, 20}, {100, 500}, {1000, 1000}}
	v := os.Getenv("KBGP_BENCH_B2_RATES")
	if v == "" {
		return all
	}
	var out []b2Step
	for _, f := range strings.Split(v, ",") {
		for _, s := range all {
			if strconv.FormatFloat(s.rate, 'f', -1, 64) == strings.TrimSpace(f) {
				out = append(out, s)
			}
		}
	}
	return out
}

// b2Result is one measured step.
type b2Result struct {
	size    int
	step    b2Step
	latency durations // API call start → first FRR poll holding the prefix
	// wire is API call start → the UPDATE announcing the prefix on FRR's interface
	// (packet capture): kbgp's share of latency, without FRR's processing and polling.
	wire     durations
	missing  int // changes never seen at FRR within the wait
	achieved float64
	calls    durations
	updates  int
	maxGap   time.Duration
	cpu      time.Duration
	recon    int
	reconSum time.Duration
	load     string
}

// TestB2WarmChange measures scenario B2: with 10k and then 100k external-IP routes
// ($KBGP_BENCH_ROUTES/10 and $KBGP_BENCH_ROUTES) already advertised to FRR over an
// Established session, LoadBalancer Services get one more IP each (a status patch,
// as a load-balancer IPAM would) at 1, 100 and 1000 changes/s; each change is timed
// from its API call to the first FRR poll that holds the new /32.
func TestB2WarmChange(t *testing.T) {
	log.SetLogger(logr.Discard())
	routes := benchRoutes()
	server, err := apiserver.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Stop()
	l := newPeerLab(t, false, "kbgp")
	agent := kbgpNode(t, server, l)
	pool := newLBPool(t, server, b2LBServices)
	mustCreate(t, server.Client, serviceAdvertisement(kbgpv1.ServiceExternalIP, kbgpv1.ServiceLoadBalancerIP))
	peer := l.speakers["kbgp"].addr.String()

	addrs := hostAddrs(bulkStart, routes)
	var results []b2Result
	advertised, lbUsed, steps := 0, 0, 0
	for _, size := range []int{routes / 10, routes} {
		createExternalIPServices(t, server.Client, fmt.Sprintf("bulk-%d", advertised), addrs[advertised:size], 1000)
		advertised = size
		waitNeighbor(t, l.frr, peer, 10*time.Minute, func(s neighborSample) bool {
			return s.state == "Established" && s.accepted == size+lbUsed
		})
		waitQuiet(agent)
		for _, step := range b2Steps() {
			r := runB2Step(t, l.frr, peer, agent, pool, lbBlock(steps), step)
			r.size = size
			lbUsed += step.changes
			steps++
			results = append(results, r)
			t.Logf("%d routes, %g changes/s (achieved %.0f/s): on the wire p50 %s p99 %s (%d seen); at FRR p50 %s p99 %s max %s, missing %d, %.3f UPDATEs/prefix, agent CPU %s, %d reconciles (mean %s), load %s",
				size, step.rate, r.achieved, ms(r.wire.median()), ms(r.wire.quantile(0.99)), len(r.wire), ms(r.latency.median()), ms(r.latency.quantile(0.99)), ms(r.latency.quantile(1)), r.missing,
				float64(r.updates)/float64(step.changes), ms(r.cpu), r.recon, ms(meanDuration(r.reconSum, r.recon)), r.load)
		}
	}

	t.Logf("B2 results (FRR polled every %s; a change is dated at the end of the first poll holding its prefix)", pollEvery)
	t.Logf("| routes advertised | rate asked | rate achieved | changes | on the wire p50 / p99 | at FRR p50 | p99 | max | never arrived | UPDATEs/prefix | API call p50 / p99 | agent CPU | reconciles (mean) | longest poll gap | load |")
	t.Logf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	p99 := map[int]map[float64]time.Duration{}
	for _, r := range results {
		if p99[r.size] == nil {
			p99[r.size] = map[float64]time.Duration{}
		}
		p99[r.size][r.step.rate] = r.latency.quantile(0.99)
		t.Logf("| %d | %g/s | %.0f/s | %d | %s / %s | %s | %s | %s | %d | %.3f | %s / %s | %s | %d (%s) | %s | %s |", r.size, r.step.rate, r.achieved, r.step.changes,
			ms(r.wire.median()), ms(r.wire.quantile(0.99)), ms(r.latency.median()), ms(r.latency.quantile(0.99)), ms(r.latency.quantile(1)), r.missing, float64(r.updates)/float64(r.step.changes),
			ms(r.calls.median()), ms(r.calls.quantile(0.99)), ms(r.cpu), r.recon, ms(meanDuration(r.reconSum, r.recon)), ms(r.maxGap), r.load)
	}
	for _, step := range b2Steps() {
		small, big := p99[routes/10][step.rate], p99[routes][step.rate]
		reportGoal(t, "B2", fmt.Sprintf("%g changes/s: p99 at %d routes ≤ %.1f× the p99 at %d", step.rate, routes, b2RatioGoal, routes/10),
			float64(big)/float64(small) <= b2RatioGoal, "%.2f× (%s vs %s)", float64(big)/float64(small), ms(big), ms(small))
		if step.rate <= 100 {
			reportGoal(t, "B2", fmt.Sprintf("%g changes/s: p99 ≤ %s at %d routes", step.rate, ms(b2P99Goal), routes), big <= b2P99Goal, "%s", ms(big))
		}
	}
	for _, r := range results {
		if r.size == routes && r.step.rate <= 100 {
			w := r.wire.quantile(0.99)
			reportGoal(t, "B2", fmt.Sprintf("%g changes/s: kbgp's share (API call → UPDATE on the wire) p99 ≤ %s at %d routes", r.step.rate, ms(b2P99Goal), routes),
				w <= b2P99Goal, "%s (%d of %d changes seen in the capture)", ms(w), len(r.wire), r.step.changes)
		}
		if r.size == routes && r.step.rate >= 1000 {
			perPrefix := float64(r.updates) / float64(r.step.changes)
			reportGoal(t, "B2", fmt.Sprintf("%g changes/s: ≤ %.2f UPDATEs per prefix", r.step.rate, b2UpdatesGoal), perPrefix <= b2UpdatesGoal,
				"%.3f (achieved %.0f changes/s)", perPrefix, r.achieved)
		}
	}
	for _, r := range results {
		if r.missing > 0 {
			t.Errorf("%d routes, %g/s: %d changes never reached FRR within %s", r.size, r.step.rate, r.missing, b2WaitPerChange)
		}
	}
}

func meanDuration(sum time.Duration, n int) time.Duration {
	if n == 0 {
		return 0
	}
	return sum / time.Duration(n)
}

// runB2Step makes step.changes (at most 4095) changes, change k giving Service k mod
// pool size the k-th load-balancer IP of block in addition to the ones it has.
func runB2Step(t *testing.T, frr *netlab.FRR, peer string, agent *agentProcess, pool *lbPool, block netip.Prefix, step b2Step) b2Result {
	r := b2Result{step: step, load: loadAvg()}
	want := hostAddrs(block.Addr().Next(), step.changes)
	before, err := sampleNeighbor(frr, peer)
	if err != nil {
		t.Fatal(err)
	}
	cpu0, _ := agent.usage()
	recSum0, rec0 := agent.reconcileTotals(t)
	seen := make(chan prefixTimes, 1)
	go func() { seen <- watchPrefixes(frr, block.String(), want, b2WaitPerChange) }()
	stopProfile := agent.profile(t, fmt.Sprintf("b2-agent-perf-%g.data", step.rate))
	capture := startCapture(t, frr.Namespace(), "to-kbgp")
	rec := pool.drive(t, step.rate, step.changes, 0, func(k int, cur []netip.Addr) []netip.Addr {
		return append(append([]netip.Addr(nil), cur...), want[k])
	})
	got := <-seen
	if report := stopProfile(); report != "" {
		t.Logf("agent profile, %g changes/s:\n%s", step.rate, report)
	}
	time.Sleep(500 * time.Millisecond)
	after, err := sampleNeighbor(frr, peer)
	if err != nil {
		t.Fatal(err)
	}
	cpu1, _ := agent.usage()
	recSum1, rec1 := agent.reconcileTotals(t)
	onWire := capture.announced(t, netip.MustParseAddr(peer))
	for k, a := range want {
		if at, ok := onWire[netip.PrefixFrom(a, 32)]; ok && !rec.sent[k].IsZero() {
			r.wire = append(r.wire, at.Sub(rec.sent[k]))
		}
		at, ok := got.first[a.String()+"/32"]
		if !ok {
			r.missing++
			continue
		}
		r.latency = append(r.latency, at.Sub(rec.sent[k]))
	}
	r.achieved, r.calls, r.updates, r.maxGap = rec.achieved(), rec.calls, after.updates-before.updates, got.maxGap
	r.cpu, r.recon, r.reconSum = cpu1-cpu0, rec1-rec0, recSum1-recSum0
	return r
}

// prefixTimes is when FRR first held each prefix, and the polling's resolution.
type prefixTimes struct {
	first  map[string]time.Time
	maxGap time.Duration
}

// watchPrefixes polls FRR's routes under block every pollEvery until every prefix of
// want is there or timeout passed.
func watchPrefixes(f *netlab.FRR, block string, want []netip.Addr, timeout time.Duration) prefixTimes {
	res := prefixTimes{first: map[string]time.Time{}}
	deadline := time.Now().Add(timeout)
	var prev time.Time
	for time.Now().Before(deadline) {
		start := time.Now()
		set, err := routesUnder(f, block)
		at := time.Now()
		if !prev.IsZero() {
			res.maxGap = max(res.maxGap, at.Sub(prev))
		}
		prev = at
		if err == nil {
			done := true
			for _, a := range want {
				p := a.String() + "/32"
				if _, ok := res.first[p]; !ok {
					if set[p] {
						res.first[p] = at
					} else {
						done = false
					}
				}
			}
			if done {
				return res
			}
		}
		time.Sleep(time.Until(start.Add(pollEvery)))
	}
	return res
}
