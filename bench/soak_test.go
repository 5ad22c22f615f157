//go:build bench

package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"os"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/test/apiserver"
	"kbgp.io/kbgp/test/e2e/netlab"
)

const (
	// soakLBServices LoadBalancer Services of soakPerLB addresses each flap their
	// ingress (Service changes); soakLocalServices eTP=Local Services flap the
	// readiness of their one endpoint on the node (endpoint changes).
	soakLBServices    = 20
	soakPerLB         = 10
	soakLocalServices = 20
	// soakStableBlock holds the stable routes (bulkStart onwards), counted at FRR.
	soakStableBlock = "10.128.0.0/9"
	// soakFlapASN is the flapping router's AS; it peers from 10.1.2.2 with the agent's
	// 10.1.2.1 on a second link.
	soakFlapASN = 65020
	// soakRSSBound is the RSS growth per hour, after the warm-up, as a fraction of the
	// RSS at the end of the warm-up, above which a run of at least soakAssertMin fails:
	// generous, because GC timing and the flapping peer's full-table resends make RSS
	// wander; a leak of the churn's state would still cross it within an hour.
	soakRSSBound  = 0.20
	soakAssertMin = 30 * time.Minute
)

var (
	soakFlapAgent = netip.MustParseAddr("10.1.2.1")
	soakFlapFRR   = netip.MustParseAddr("10.1.2.2")
	// soakLocalStart is the first eTP=Local Service's external IP; like the
	// load-balancer addresses (from the start of b3ChurnBlock) it lies in b3ChurnBlock,
	// so one small query reads every churned route.
	soakLocalStart = netip.MustParseAddr("100.100.0.1")
)

// soakEnv is a Go duration from $name, or def.
func soakEnv(name string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(os.Getenv(name)); err == nil && d > 0 {
		return d
	}
	return def
}

// TestSoak runs one agent process for $KBGP_SOAK_DURATION (1h) against a real API
// server, peering with two FRRs: the counted router holds a stable set of
// $KBGP_SOAK_ROUTES (10k) Service external IPs that never change, and the flapping
// router's session is shut and re-enabled every $KBGP_SOAK_FLAP (30 s, half down).
// Meanwhile $KBGP_SOAK_RATE (20) changes per second alternate between a load-balancer
// ingress address added or removed and a local endpoint's readiness toggled. The
// counted router's stable routes are counted every 250 ms; agent RSS, goroutines,
// open fds and status writes are sampled every $KBGP_SOAK_SAMPLE (1 min). It fails on
// a stable route lost, the counted session dropped, churned routes not converging,
// and (runs ≥ 30 min) RSS growing faster than soakRSSBound after the warm-up; other
// slopes are reported. It runs only with $KBGP_SOAK set: an hour does not fit
// `make bench`'s timeout.
func TestSoak(t *testing.T) {
	if os.Getenv("KBGP_SOAK") == "" {
		t.Skip("the soak runs for an hour: set KBGP_SOAK=1 (and KBGP_SOAK_DURATION for another length)")
	}
	log.SetLogger(logr.Discard())
	duration := soakEnv("KBGP_SOAK_DURATION", time.Hour)
	flapEvery := soakEnv("KBGP_SOAK_FLAP", 30*time.Second)
	sampleEvery := soakEnv("KBGP_SOAK_SAMPLE", time.Minute)
	warmup := soakEnv("KBGP_SOAK_WARMUP", min(5*time.Minute, duration/4))
	rate := 20.0
	if r, err := strconv.ParseFloat(os.Getenv("KBGP_SOAK_RATE"), 64); err == nil && r > 0 {
		rate = r
	}
	stable := 10_000
	if n, err := strconv.Atoi(os.Getenv("KBGP_SOAK_ROUTES")); err == nil && n >= 1000 {
		stable = n / 1000 * 1000
	}

	server, err := apiserver.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Stop()
	c := server.Client
	l := newPeerLab(t, false, "kbgp")
	peer := l.speakers["kbgp"].addr.String()
	soakFilterStable(t, l.frr, peer, true)
	flap := soakFlapRouter(t, l)
	agent := kbgpNode(t, server, l)
	soakAddFlapPeer(t, c)

	createExternalIPServices(t, c, "stable", hostAddrs(bulkStart, stable), 1000)
	pool := newLBPool(t, server, soakLBServices)
	lbAddrs := hostAddrs(b3ChurnBlock.Addr().Next(), soakLBServices*soakPerLB)
	lbChunk := func(i int) []netip.Addr { return lbAddrs[i*soakPerLB : (i+1)*soakPerLB] }
	for i := range soakLBServices {
		if err := pool.set(i, lbChunk(i)[:soakPerLB/2]); err != nil {
			t.Fatal(err)
		}
	}
	local := newLocalPool(t, pool.c, soakLocalServices)
	mustCreate(t, c, serviceAdvertisement(kbgpv1.ServiceExternalIP, kbgpv1.ServiceLoadBalancerIP))
	want := func() map[string]bool {
		set := map[string]bool{}
		for _, ips := range pool.ips {
			for _, a := range ips {
				set[a.String()+"/32"] = true
			}
		}
		for j, ready := range local.ready {
			if ready {
				set[local.addrs[j].String()+"/32"] = true
			}
		}
		return set
	}
	setupStart := time.Now()
	waitNeighbor(t, l.frr, peer, 10*time.Minute, func(s neighborSample) bool { return s.state == "Established" && s.accepted == stable })
	flap.WaitNeighborState(t, soakFlapAgent.String(), "Established", 5*time.Minute)
	waitQuiet(agent)
	t.Logf("soak setup: %d stable routes + %d churned routes at FRR %s after the advertisement (load %s)",
		stable, len(want()), time.Since(setupStart).Round(time.Second), loadAvg())
	before, err := sampleNeighbor(l.frr, peer)
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	counter := &stableCounter{frr: l.frr, peer: peer, stable: stable, least: stable}
	flaps := &flapper{frr: flap}
	var changes atomic.Int64
	samples := make(chan soakSample, 1024)
	wg.Go(func() { counter.run(ctx) })
	wg.Go(func() { flaps.run(ctx, flapEvery) })
	wg.Go(func() { soakSampler(ctx, agent, counter, flaps, &changes, sampleEvery, samples) })

	// Change k: even k toggles address k/2/20 mod 10 of LB Service k/2 mod 20, odd k
	// the readiness of local Service k/2 mod 20; each Service stays on one worker.
	start := time.Now()
	n := int(duration.Seconds() * rate)
	rec := pace(t, rate, n, duration, func(k int) int {
		if k%2 == 0 {
			return (k / 2 % soakLBServices) % (changeWorkers / 2)
		}
		return changeWorkers/2 + (k/2%soakLocalServices)%(changeWorkers/2)
	}, func(k int) error {
		defer changes.Add(1)
		if k%2 == 1 {
			return local.toggle(k / 2 % soakLocalServices)
		}
		i := k / 2 % soakLBServices
		a := lbChunk(i)[k/2/soakLBServices%soakPerLB]
		cur := pool.ips[i]
		next := make([]netip.Addr, 0, len(cur)+1)
		for _, b := range cur {
			if b != a {
				next = append(next, b)
			}
		}
		if len(next) == len(cur) {
			next = append(next, a)
		}
		return pool.set(i, next)
	})
	churnEnd := time.Now()
	time.Sleep(sampleEvery + 5*time.Second) // one more sample, after the churn
	cancel()
	wg.Wait()
	// The churned routes: what the router kept from the agent, accepted again.
	unfiltered := time.Now()
	soakFilterStable(t, l.frr, peer, false)
	final := want()
	converged := waitChurnSettled(t, l.frr, peer, stable+len(final), final, 10*time.Minute)
	close(samples)
	var rows []soakSample
	for s := range samples {
		rows = append(rows, s)
	}
	after, err := sampleNeighbor(l.frr, peer)
	if err != nil {
		t.Fatal(err)
	}
	exact, err := routesUnder(l.frr, soakStableBlock)
	if err != nil {
		t.Fatal(err)
	}

	t.Logf("Soak: %s of churn asked at %.0f changes/s (%d made, %.1f/s achieved, API call p50 %s p99 %s), %d stable routes, flapping peer every %s; load %s at the end",
		churnEnd.Sub(start).Round(time.Second), rate, rec.made, rec.achieved(), ms(rec.calls.median()), ms(rec.calls.quantile(0.99)),
		stable, flapEvery, loadAvg())
	t.Logf("| minute | load | changes | agent RSS MiB | goroutines | open fds | status writes (per min) | stable routes at FRR, least seen (polls) | flap cycles |")
	t.Logf("|---|---|---|---|---|---|---|---|---|")
	for _, s := range rows {
		t.Logf("| %.0f | %s | %d | %.1f | %d | %d | %d | %d (%d) | %d |", s.at.Sub(start).Minutes(), s.load, s.changes, float64(s.rss)/(1<<20),
			s.goroutines, s.fds, s.statusWrites, s.leastStable, s.polls, s.flaps)
	}
	late := soakAfter(rows, start.Add(warmup))
	type metric struct {
		name string
		get  func(soakSample) float64
	}
	for _, m := range []metric{
		{"RSS MiB", func(s soakSample) float64 { return float64(s.rss) / (1 << 20) }},
		{"goroutines", func(s soakSample) float64 { return float64(s.goroutines) }},
		{"open fds", func(s soakSample) float64 { return float64(s.fds) }},
		{"status writes/min", func(s soakSample) float64 { return float64(s.statusWrites) }},
	} {
		if len(late) < 2 {
			break
		}
		first, last := m.get(late[0]), m.get(late[len(late)-1])
		slope := soakSlope(late, m.get)
		t.Logf("%s after the %s warm-up: first %.1f, last %.1f, least-squares slope %+.2f/hour (%+.1f%% of first per hour)",
			m.name, warmup, first, last, slope, 100*slope/max(first, 1e-9))
	}
	maxWrites, sumWrites := 0, 0
	for _, s := range rows {
		maxWrites = max(maxWrites, s.statusWrites)
		sumWrites += s.statusWrites
	}
	if len(rows) > 0 {
		t.Logf("status writes: mean %.3f/s, worst minute %.3f/s; B6 goal ≤ %.1f/s (B6 measured 0.133 and 0.183/s while flapping)",
			float64(sumWrites)/sampleEvery.Seconds()/float64(len(rows)), float64(maxWrites)/sampleEvery.Seconds(), b6RateGoal)
	}
	t.Logf("counted router: %d polls (every %s), least stable count %d of %d, %d in the full read after the churn; session connectionsDropped %d → %d, polls not Established %d; churned routes exact at FRR %s after the filter's removal",
		counter.polls.Load(), soakPollEvery, counter.least, stable, len(exact), before.dropped, after.dropped, counter.notEstablished, ms(converged.Sub(unfiltered)))
	t.Logf("flapping router: %d cycles, routes it held when shut: least %d, most %d", flaps.cycles.Load(), flaps.leastHeld, flaps.mostHeld)
	if counter.err != nil {
		t.Errorf("counting stopped: %v", counter.err)
	}
	if counter.least < stable || len(exact) != stable {
		t.Errorf("stable routes lost at the counted router: least %d, at the end %d, want %d", counter.least, len(exact), stable)
	}
	if after.dropped != before.dropped || counter.notEstablished > 0 {
		t.Errorf("the counted session dropped: connectionsDropped %d → %d, %d polls not Established", before.dropped, after.dropped, counter.notEstablished)
	}
	if flaps.err != nil {
		t.Errorf("flapping: %v", flaps.err)
	}
	if duration >= soakAssertMin && len(late) >= 2 {
		rss := func(s soakSample) float64 { return float64(s.rss) }
		if growth := soakSlope(late, rss) / rss(late[0]); growth > soakRSSBound {
			t.Errorf("agent RSS grows %.1f%%/hour after the warm-up, bound %.0f%%", 100*growth, 100*soakRSSBound)
		}
	}
}

// soakFlapRouter starts the flapping router: a second FRR in its own namespace,
// linked to the agent's, peering with the agent's second address.
func soakFlapRouter(t *testing.T, l *peerLab) *netlab.FRR {
	ns := l.lab.Namespace("flap")
	l.lab.Link(l.speakers["kbgp"].ns, "to-flap", []string{soakFlapAgent.String() + "/30"}, ns, "to-kbgp", []string{soakFlapFRR.String() + "/30"})
	a := soakFlapAgent.String()
	return netlab.StartFRR(ns, netlab.FRRConfig{ASN: soakFlapASN, RouterID: soakFlapFRR.String(), RawConfig: fmt.Sprintf(
		"neighbor %s remote-as %d\nneighbor %s timers 3 9\nneighbor %s timers connect 1\n", a, speakerASN, a, a)})
}

// soakAddFlapPeer adds the flapping router as a second peer of the node, with the same
// peer config (so it is sent every route the counted router is).
func soakAddFlapPeer(t *testing.T, c client.Client) {
	nc := &kbgpv1.BGPNodeConfig{}
	if err := c.Get(context.Background(), types.NamespacedName{Name: "bench-node"}, nc); err != nil {
		t.Fatal(err)
	}
	inst := &nc.Spec.BGPInstances[0]
	inst.Peers = append(inst.Peers, kbgpv1.BGPNodePeer{BGPPeer: kbgpv1.BGPPeer{Name: "flap", PeerAddress: soakFlapFRR.String(),
		PeerASN: soakFlapASN, PeerConfigRef: &kbgpv1.PeerConfigReference{Name: "bench-frr"}}})
	if err := c.Update(context.Background(), nc); err != nil {
		t.Fatal(err)
	}
}

// localPool is a set of externalTrafficPolicy=Local Services with one external IP and
// one endpoint on the node each: the route is advertised while the endpoint is ready.
type localPool struct {
	c     client.Client
	addrs []netip.Addr
	ready []bool // owned by the Service's worker
}

func newLocalPool(t *testing.T, c client.Client, n int) *localPool {
	p := &localPool{c: c, addrs: hostAddrs(soakLocalStart, n), ready: make([]bool, n)}
	for j := range n {
		name := fmt.Sprintf("local-%03d", j)
		mustCreate(t, c, &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
			Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}, ExternalIPs: []string{p.addrs[j].String()},
				ExternalTrafficPolicy: corev1.ServiceExternalTrafficPolicyLocal},
		})
		mustCreate(t, c, &discoveryv1.EndpointSlice{
			ObjectMeta:  metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{discoveryv1.LabelServiceName: name}},
			AddressType: discoveryv1.AddressTypeIPv4,
			Endpoints:   []discoveryv1.Endpoint{soakEndpoint(j, true)},
			Ports:       []discoveryv1.EndpointPort{{Port: ptr.To[int32](80)}},
		})
		p.ready[j] = true
	}
	return p
}

func soakEndpoint(j int, ready bool) discoveryv1.Endpoint {
	return discoveryv1.Endpoint{Addresses: []string{fmt.Sprintf("10.244.1.%d", 10+j)}, NodeName: ptr.To("bench-node"),
		Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(ready)}}
}

// toggle flips the readiness of local Service j's endpoint (a merge patch replaces
// the slice's endpoint list).
func (p *localPool) toggle(j int) error {
	body, err := json.Marshal(map[string]any{"endpoints": []discoveryv1.Endpoint{soakEndpoint(j, !p.ready[j])}})
	if err != nil {
		return err
	}
	s := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("local-%03d", j), Namespace: "default"}}
	if err := p.c.Patch(context.Background(), s, client.RawPatch(types.MergePatchType, body)); err != nil {
		return err
	}
	p.ready[j] = !p.ready[j]
	return nil
}

// stableCounter polls the counted router every soakPollEvery. The router accepts only
// the stable block from the agent (soakFilterStable), so its accepted count is the
// stable count, read in one cheap call; the churned routes still reach it and are
// kept in its Adj-RIB-In for the check at the end. The fields after the atomics are
// read only after run returns.
type stableCounter struct {
	frr    *netlab.FRR
	peer   string
	stable int

	polls          atomic.Int64
	pollLeast      atomic.Int64 // least since the sampler last took it; reset to stable
	least          int
	notEstablished int
	err            error
}

// soakPollEvery is the counted router's poll period.
const soakPollEvery = 250 * time.Millisecond

func (s *stableCounter) run(ctx context.Context) {
	s.pollLeast.Store(int64(s.stable))
	for ctx.Err() == nil {
		start := time.Now()
		nb, err := sampleNeighbor(s.frr, s.peer)
		if err != nil {
			s.err = err
			return
		}
		n := nb.accepted
		if nb.state != "Established" {
			s.notEstablished++
		}
		s.polls.Add(1)
		s.least = min(s.least, n)
		for {
			cur := s.pollLeast.Load()
			if int64(n) >= cur || s.pollLeast.CompareAndSwap(cur, int64(n)) {
				break
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Until(start.Add(soakPollEvery))):
		}
	}
}

// soakFilterStable makes the counted router accept only the stable block from the
// agent, keeping everything it receives in its Adj-RIB-In (soft-reconfiguration
// inbound); on false it accepts everything again from what it kept, without a reset.
func soakFilterStable(t *testing.T, f *netlab.FRR, peer string, on bool) {
	no := "no "
	if on {
		no = ""
	}
	f.MustConfigure("ip prefix-list soak-stable seq 5 permit "+soakStableBlock+" ge 32",
		fmt.Sprintf("router bgp %d", peerASN), "address-family ipv4 unicast",
		"neighbor "+peer+" soft-reconfiguration inbound", no+"neighbor "+peer+" prefix-list soak-stable in")
	if !on {
		if out, err := f.Command("clear bgp ipv4 unicast " + peer + " soft in"); err != nil {
			t.Fatalf("clear soft in: %v: %s", err, out)
		}
	}
}

// flapper shuts the flapping router's session down for half of every period and
// brings it up for the other half, noting how many routes it held before each shut.
type flapper struct {
	frr                 *netlab.FRR
	cycles              atomic.Int64
	leastHeld, mostHeld int
	err                 error
}

func (f *flapper) run(ctx context.Context, period time.Duration) {
	router := fmt.Sprintf("router bgp %d", soakFlapASN)
	a := soakFlapAgent.String()
	f.leastHeld = -1
	sleep := func() bool {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(period / 2):
			return true
		}
	}
	for sleep() {
		if nb, err := f.frr.Neighbor(a); err == nil {
			held := nb.AddressFamilyInfo["ipv4Unicast"].AcceptedPrefixCounter
			if f.leastHeld < 0 || held < f.leastHeld {
				f.leastHeld = held
			}
			f.mostHeld = max(f.mostHeld, held)
		}
		if f.err = f.frr.Configure(router, "neighbor "+a+" shutdown"); f.err != nil {
			return
		}
		ok := sleep()
		if f.err = f.frr.Configure(router, "no neighbor "+a+" shutdown"); f.err != nil || !ok {
			return
		}
		f.cycles.Add(1)
	}
}

// soakSample is one minute's reading of the agent.
type soakSample struct {
	at           time.Time
	load         string
	changes      int64
	rss          int64
	goroutines   int
	fds          int
	statusWrites int // in the period before the sample
	leastStable  int64
	polls        int64
	flaps        int64
}

var (
	goroutinesRe   = regexp.MustCompile(`(?m)^go_goroutines (\d+)$`)
	statusWritesRe = regexp.MustCompile(`(?m)^kbgp_status_writes_total (\d+)$`)
)

// soakSampler reads the agent every period until ctx ends: RSS and open fds from
// /proc, goroutines and the status write counter from its metrics endpoint.
func soakSampler(ctx context.Context, a *agentProcess, counter *stableCounter, f *flapper, changes *atomic.Int64, period time.Duration, out chan<- soakSample) {
	lastWrites := -1
	read := func() soakSample {
		s := soakSample{at: time.Now(), load: loadAvg(), changes: changes.Load(), polls: counter.polls.Load(), flaps: f.cycles.Load()}
		s.leastStable = counter.pollLeast.Swap(int64(counter.stable))
		s.rss, _, _ = procRSS(a.proc.PID())
		if fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", a.proc.PID())); err == nil {
			s.fds = len(fds)
		}
		if m, err := a.ns.ExecTimeout(10*time.Second, "curl", "-sf", "http://127.0.0.1:9080/metrics"); err == nil {
			if g := goroutinesRe.FindStringSubmatch(m); g != nil {
				s.goroutines, _ = strconv.Atoi(g[1])
			}
			if w := statusWritesRe.FindStringSubmatch(m); w != nil {
				n, _ := strconv.Atoi(w[1])
				if lastWrites >= 0 {
					s.statusWrites = n - lastWrites
				}
				lastWrites = n
			}
		}
		return s
	}
	out <- read()
	tick := time.NewTicker(period)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			out <- read()
		}
	}
}

// soakAfter is the samples taken at or after from.
func soakAfter(rows []soakSample, from time.Time) []soakSample {
	for i, s := range rows {
		if !s.at.Before(from) {
			return rows[i:]
		}
	}
	return nil
}

// soakSlope is the least-squares slope of get over the samples' times, per hour.
func soakSlope(rows []soakSample, get func(soakSample) float64) float64 {
	var mt, my float64
	for _, s := range rows {
		mt += s.at.Sub(rows[0].at).Hours()
		my += get(s)
	}
	mt, my = mt/float64(len(rows)), my/float64(len(rows))
	var num, den float64
	for _, s := range rows {
		dt := s.at.Sub(rows[0].at).Hours() - mt
		num += dt * (get(s) - my)
		den += dt * dt
	}
	if den == 0 {
		return 0
	}
	return num / den
}
