//go:build bench

package bench

import (
	"cmp"
	"context"
	"fmt"
	"net/netip"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/operator"
	"kbgp.io/kbgp/test/apiserver"
	"kbgp.io/kbgp/test/e2e/netlab"
)

// b8Step is one rate at which LoadBalancer Services are created.
type b8Step struct {
	rate     float64
	services int
	// creators are the goroutines creating the Services (default changeWorkers).
	creators int
	// waiting creates the Services before their pool: they all wait at once, and each
	// is timed from the pool's creation, which measures the operator draining a queue
	// of Services without the API server's time to create them.
	waiting bool
}

// b8Burst is 1,000 Services created as fast as the API server takes them, from 64
// goroutines: with 16 a loaded API server (0.5 s a create) stretched the "burst" over
// 40 s, which then measured the creates rather than the operator.
var b8Burst = b8Step{rate: 10000, services: 1000, creators: 64}

// b8Waiting is 1,000 Services waiting when their pool appears.
var b8Waiting = b8Step{rate: 10000, services: 1000, creators: 64, waiting: true}

// b8Steps: a trickle, the goal's 100 Services/s, and a burst of 1,000 as fast as the
// API server takes them.
func b8Steps() []b8Step {
	if os.Getenv("KBGP_B8_QUICK") != "" {
		return []b8Step{{rate: 10, services: 20}}
	}
	// $KBGP_B8_BURST runs the burst alone: the step the operator's client limits decide.
	if os.Getenv("KBGP_B8_BURST") != "" {
		return []b8Step{b8Burst, b8Waiting}
	}
	return []b8Step{{rate: 10, services: 50}, {rate: 100, services: 500}, b8Burst, b8Waiting}
}

const (
	b8P99Goal = 200 * time.Millisecond
	// The burst's goals: 1,000 Services created at once all show their address within
	// b8BurstStatusGoal and are all at the router within b8BurstRouteGoal.
	b8BurstStatusGoal = 5 * time.Second
	b8BurstRouteGoal  = 10 * time.Second
	// b8Wait bounds how long a step waits for its last route (the creates included:
	// 1,000 took a minute on the loaded machine).
	b8Wait = 4 * time.Minute
	// b8StepLabel gives each step's Services their own pool. Not under kbgp.io: a
	// Service cannot set labels there (they are dropped before selection).
	b8StepLabel = "b8.bench.example/step"
)

// TestB8ServiceToRoute times a LoadBalancer Service from its creation (no address in
// it) to its /32 in FRR's table: the operator's LoadBalancerIPAM (the real manager, in
// this process) gives it an address from a LoadBalancerIPPool and writes its status;
// `kbgp agent` (a process in a node namespace) sees the status and announces the
// address. Every Service must end with a distinct address.
func TestB8ServiceToRoute(t *testing.T) {
	log.SetLogger(logr.Discard())
	server, err := apiserver.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Stop()
	l := newPeerLab(t, false, "kbgp")
	agent := kbgpNode(t, server, l)
	procs := b8Processes{apiserver: childPID("kube-apiserver"), etcd: childPID("etcd"), agent: agent.proc.PID(), frr: l.frr.Proc.PID()}
	mustCreate(t, server.Client, serviceAdvertisement(kbgpv1.ServiceLoadBalancerIP))
	// The operator deletes node configs no cluster config selects: this one renders
	// the node config kbgpNode wrote, unchanged.
	s := l.speakers["kbgp"]
	mustCreate(t, server.Client, &kbgpv1.BGPClusterConfig{ObjectMeta: metav1.ObjectMeta{Name: "bench"}, Spec: kbgpv1.BGPClusterConfigSpec{
		BGPInstances: []kbgpv1.BGPInstance{{
			BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: speakerASN, RouterID: s.addr.String()},
			Peers: []kbgpv1.BGPPeer{{Name: "frr", PeerAddress: s.frr.String(), PeerASN: peerASN,
				PeerConfigRef: &kbgpv1.PeerConfigReference{Name: "bench-frr"}}},
		}},
	}})
	// The client limits of the `kbgp operator` binary (--kube-api-qps, --kube-api-burst),
	// or $KBGP_B8_QPS and $KBGP_B8_BURST_LIMIT to compare others.
	opCfg := rest.CopyConfig(server.Config)
	opCfg.QPS, opCfg.Burst = float32(envInt("KBGP_B8_QPS", 200)), envInt("KBGP_B8_BURST_LIMIT", 400)
	t.Logf("operator client limits: %g requests/s, burst %d", opCfg.QPS, opCfg.Burst)
	requests := countRequests(opCfg)
	workers := envInt("KBGP_B8_IPAM_WORKERS", operator.DefaultLoadBalancerIPAMWorkers)
	t.Logf("operator: %d load-balancer IPAM workers (--lb-ipam-workers)", workers)
	stop := startOperatorWith(t, opCfg, operator.Options{LoadBalancerIPAMWorkers: workers})
	defer stop()
	peer := s.addr.String()
	waitNeighbor(t, l.frr, peer, 2*time.Minute, func(s neighborSample) bool { return s.state == "Established" })

	cfg := rest.CopyConfig(server.Config)
	cfg.QPS, cfg.Burst = -1, 0
	c, err := client.NewWithWatch(cfg, client.Options{Scheme: server.Client.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("B8 results (FRR polled every %s; a Service is dated from its create call to the end of the first poll holding its /32)", pollEvery)
	t.Logf("(the waiting step's Services were all created before their pool: each is timed from the pool's creation)")
	t.Logf("| rate asked | rate achieved | Services | p50 | p99 | max | address in status p50 / p99 | no address | never at FRR | duplicate addresses | create call p50 / p99 | longest poll gap | load |")
	t.Logf("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	for i, step := range b8Steps() {
		before, cpu0, start := requests.snapshot(), procs.cpu(), time.Now()
		r := runB8Step(t, c, l.frr, s.addr, i, step)
		t.Logf("operator requests during step %d: %s", i, requests.since(before))
		t.Logf("CPU during step %d: %s", i, procs.cpu().since(cpu0).String(time.Since(start)))
		t.Logf("step %d wall clock from the first create call: last create call made at %s, last address in status at %s, last route at FRR at %s; create call returned → address in status p50 %s, p99 %s, max %s; → route at FRR p50 %s, p99 %s, max %s",
			i, ms(r.wall.created), ms(r.wall.assigned), ms(r.wall.routed), ms(r.afterCreate.median()), ms(r.afterCreate.quantile(0.99)), ms(r.afterCreate.quantile(1)),
			ms(r.routedAfterCreate.median()), ms(r.routedAfterCreate.quantile(0.99)), ms(r.routedAfterCreate.quantile(1)))
		t.Logf("step %d on the wire (packet capture at FRR, %d of %d Services): create call → UPDATE p50 %s, p99 %s, max %s; create call returned → UPDATE p50 %s, p99 %s; address in status → UPDATE (the agent) p50 %s, p99 %s, max %s",
			i, len(r.wire), step.services, ms(r.wire.median()), ms(r.wire.quantile(0.99)), ms(r.wire.quantile(1)),
			ms(r.wireAfterCreate.median()), ms(r.wireAfterCreate.quantile(0.99)),
			ms(r.wireAfterStatus.median()), ms(r.wireAfterStatus.quantile(0.99)), ms(r.wireAfterStatus.quantile(1)))
		asked, achieved := fmt.Sprintf("%g/s", step.rate), fmt.Sprintf("%.0f/s", r.rec.achieved())
		if step.waiting {
			asked, achieved = "all waiting, then the pool", "-"
		}
		t.Logf("| %s | %s | %d | %s | %s | %s | %s / %s | %d | %d | %d | %s / %s | %s | %s |", asked, achieved, step.services,
			ms(r.latency.median()), ms(r.latency.quantile(0.99)), ms(r.latency.quantile(1)), ms(r.assigned.median()), ms(r.assigned.quantile(0.99)),
			r.unassigned, r.missing, r.duplicates,
			ms(r.rec.calls.median()), ms(r.rec.calls.quantile(0.99)), ms(r.maxGap), r.load)
		if r.unassigned > 0 || r.missing > 0 || r.duplicates > 0 {
			t.Errorf("%g/s: %d Services got no address, %d never reached FRR, %d addresses held twice", step.rate, r.unassigned, r.missing, r.duplicates)
		}
		if step.rate == 100 {
			reportGoal(t, "B8", fmt.Sprintf("100 Services/s: create → FRR holds the /32, p99 ≤ %s", ms(b8P99Goal)), r.latency.quantile(0.99) <= b8P99Goal,
				"%s (%.2f× the goal)", ms(r.latency.quantile(0.99)), float64(r.latency.quantile(0.99))/float64(b8P99Goal))
		}
		if step.services >= 1000 {
			what, from := "1,000 at once", "its create call"
			if step.waiting {
				what, from = "1,000 waiting for a pool", "the pool's creation"
			}
			reportGoal(t, "B8", what+": no address held twice", r.duplicates == 0, "%d held twice", r.duplicates)
			last := r.assigned.quantile(1)
			reportGoal(t, "B8", fmt.Sprintf("%s: all in status within %s", what, b8BurstStatusGoal),
				r.unassigned == 0 && len(r.assigned) == step.services && last <= b8BurstStatusGoal,
				"last at %s after %s, %d of %d seen (load %s)", ms(last), from, len(r.assigned), step.services, r.load)
			last = r.latency.quantile(1)
			reportGoal(t, "B8", fmt.Sprintf("%s: all at the router within %s", what, b8BurstRouteGoal),
				r.missing == 0 && len(r.latency) == step.services && last <= b8BurstRouteGoal,
				"last at %s after %s, %d of %d at FRR (load %s)", ms(last), from, len(r.latency), step.services, r.load)
		}
	}
}

type b8Result struct {
	rec paced
	// assigned is from the create call to the watch event carrying the address;
	// latency to the route at FRR; afterCreate from the create call's return to the
	// address: the operator's share, without the API server's time to create;
	// routedAfterCreate from the create call's return to the route at FRR: kbgp's
	// share (operator and agent).
	assigned, latency, afterCreate, routedAfterCreate durations
	// wire is from the create call to the UPDATE announcing the /32 on FRR's interface
	// (packet capture), without FRR's processing and the polling; wireAfterCreate from
	// the create call's return; wireAfterStatus from the address in status (as this
	// benchmark's watch saw it): the agent's share, its own watch's delivery included.
	wire, wireAfterCreate, wireAfterStatus durations
	// unassigned Services got no address; missing ones got one that never reached FRR.
	unassigned, missing, duplicates int
	maxGap                          time.Duration
	load                            string
	wall                            burstTimes
}

// burstTimes are a step's wall-clock marks from its first create call: the last create
// call made, the last address seen in status, the last route at FRR.
type burstTimes struct {
	start                     time.Time
	created, assigned, routed time.Duration
}

// burstWall dates the last create call and the last route at FRR from the first create
// (the last address in status is dated by the caller).
func burstWall(sent []time.Time, got prefixTimes) burstTimes {
	var first, last time.Time
	for _, at := range sent {
		if at.IsZero() {
			continue
		}
		if first.IsZero() || at.Before(first) {
			first = at
		}
		if at.After(last) {
			last = at
		}
	}
	w := burstTimes{start: first, created: last.Sub(first)}
	for _, at := range got.first {
		w.routed = max(w.routed, at.Sub(first))
	}
	return w
}

// runB8Step creates the step's Services at its rate, each with no address, next to a
// pool of its own (a /20 of lbBlock) that serves only them, and waits for their routes.
func runB8Step(t *testing.T, c client.WithWatch, frr *netlab.FRR, speaker netip.Addr, step int, s b8Step) b8Result {
	ctx := context.Background()
	block := lbBlock(step)
	label := strconv.Itoa(step)
	pool := &kbgpv1.LoadBalancerIPPool{ObjectMeta: metav1.ObjectMeta{Name: "b8-" + label}, Spec: kbgpv1.LoadBalancerIPPoolSpec{
		Blocks:          []kbgpv1.IPBlock{{CIDR: kbgpv1.CIDR(block.String())}},
		ServiceSelector: &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{b8StepLabel: kbgpv1.LabelValue(label)}},
	}}
	if !s.waiting {
		mustCreate(t, c, pool)
	}
	// The pool hands out its lowest free addresses, so the step's Services end up with
	// the first ones of the block, in some order.
	want := hostAddrs(block.Addr(), s.services)
	r := b8Result{load: loadAvg()}
	seen := make(chan prefixTimes, 1)
	go func() { seen <- watchPrefixes(frr, block.String(), want, b8Wait) }()
	names := make([]string, s.services)
	assigned, stopWatch := watchAssigned(t, c, label)
	defer stopWatch()
	capture := startCapture(t, frr.Namespace(), "to-kbgp")
	creators := cmp.Or(s.creators, changeWorkers)
	r.rec = paceWith(t, creators, s.rate, s.services, 0, func(k int) int { return k % creators }, func(k int) error {
		names[k] = fmt.Sprintf("b8-%d-%04d", step, k)
		return c.Create(ctx, &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: names[k], Namespace: "default", Labels: map[string]string{b8StepLabel: label}},
			Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, AllocateLoadBalancerNodePorts: ptr.To(false),
				Ports: []corev1.ServicePort{{Port: 80}}},
		})
	})
	if s.waiting {
		// Every Service is timed from the pool's creation.
		now := time.Now()
		mustCreate(t, c, pool)
		for k := range r.rec.sent {
			r.rec.sent[k], r.rec.done[k] = now, now
		}
	}
	got := <-seen
	onWire := capture.announced(t, speaker)
	r.maxGap = got.maxGap
	r.wall = burstWall(r.rec.sent, got)
	holder := map[netip.Addr]string{}
	for k, name := range names {
		var svc corev1.Service
		if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: name}, &svc); err != nil {
			t.Fatal(err)
		}
		if len(svc.Status.LoadBalancer.Ingress) != 1 {
			r.unassigned++
			continue
		}
		addr := netip.MustParseAddr(svc.Status.LoadBalancer.Ingress[0].IP)
		if _, dup := holder[addr]; dup {
			r.duplicates++
		}
		holder[addr] = name
		a, inStatus := assigned.at(name)
		if inStatus {
			r.assigned = append(r.assigned, a.Sub(r.rec.sent[k]))
			r.afterCreate = append(r.afterCreate, a.Sub(r.rec.done[k]))
			r.wall.assigned = max(r.wall.assigned, a.Sub(r.wall.start))
		}
		if w, ok := onWire[netip.PrefixFrom(addr, 32)]; ok {
			r.wire = append(r.wire, w.Sub(r.rec.sent[k]))
			r.wireAfterCreate = append(r.wireAfterCreate, w.Sub(r.rec.done[k]))
			if inStatus {
				r.wireAfterStatus = append(r.wireAfterStatus, w.Sub(a))
			}
		}
		at, ok := got.first[addr.String()+"/32"]
		if !ok {
			r.missing++
			continue
		}
		r.latency = append(r.latency, at.Sub(r.rec.sent[k]))
		r.routedAfterCreate = append(r.routedAfterCreate, at.Sub(r.rec.done[k]))
	}
	return r
}

// assignedTimes is when a watch first saw each Service with an address.
type assignedTimes struct {
	mu    sync.Mutex
	first map[string]time.Time
}

func (a *assignedTimes) at(name string) (time.Time, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	t, ok := a.first[name]
	return t, ok
}

// watchAssigned watches the step's Services and dates each one's first address. The
// API server may end a watch at any time (a 1,000-Service burst ended one after 604
// Services): the watch resumes from the last resource version it saw, so no event is
// lost and none is dated late.
func watchAssigned(t *testing.T, c client.WithWatch, step string) (*assignedTimes, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	// First any resource version: the newest may not have reached the API server's
	// watch cache of Services yet (it answers "too large resource version").
	open := func(rv string) (watch.Interface, error) {
		return c.Watch(ctx, &corev1.ServiceList{}, client.InNamespace("default"), client.MatchingLabels{b8StepLabel: step},
			&client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: rv}})
	}
	w, err := open("0")
	if err != nil {
		t.Fatal(err)
	}
	a := &assignedTimes{first: map[string]time.Time{}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		rv := "0"
		for {
			rv = a.record(ctx, t, step, w, rv)
			if ctx.Err() != nil {
				return
			}
			t.Logf("watch of step %s ended by the API server; resuming from resource version %s", step, rv)
			time.Sleep(100 * time.Millisecond) // an error event ends the watch too: no busy loop
			if w, err = open(rv); err != nil {
				t.Errorf("watch of step %s: %v", step, err)
				return
			}
		}
	}()
	return a, func() { cancel(); <-done }
}

// record dates the Services' first addresses until w ends, and returns the last
// resource version it saw (from, if none).
func (a *assignedTimes) record(ctx context.Context, t *testing.T, step string, w watch.Interface, from string) string {
	defer w.Stop()
	rv := from
	for ev := range w.ResultChan() {
		obj, ok := ev.Object.(client.Object)
		if !ok {
			if ctx.Err() == nil { // not the error that ends a stopped watch
				t.Logf("watch of step %s: %s %T %v", step, ev.Type, ev.Object, ev.Object)
			}
			continue
		}
		rv = obj.GetResourceVersion()
		svc, ok := obj.(*corev1.Service)
		if !ok || len(svc.Status.LoadBalancer.Ingress) == 0 {
			continue
		}
		now := time.Now()
		a.mu.Lock()
		if _, seen := a.first[svc.Name]; !seen {
			a.first[svc.Name] = now
		}
		a.mu.Unlock()
	}
	return rv
}
