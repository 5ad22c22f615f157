//go:build bench

package bench

import (
	"context"
	"fmt"
	"maps"
	"net/netip"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/log"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/test/apiserver"
	"kbgp.io/kbgp/test/e2e/netlab"
)

const (
	// b3LBServices hold the flapping 10% as load-balancer IPs.
	b3LBServices = 100
	// b3ChurnRate is the design's churn rate; frrReloadRate MetalLB's frr-reload
	// withdrawal rate, the anchor of the ≥ 1000× goal.
	b3ChurnRate   = 1000
	frrReloadRate = 10
	b3Goal        = 1.5
)

// b3ChurnBlock holds the flapping addresses (1M /32s would fit).
var b3ChurnBlock = netip.MustParsePrefix("100.96.0.0/12")

// b3ChurnTime is 60 s of churn, or $KBGP_BENCH_CHURN (a Go duration).
func b3ChurnTime() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("KBGP_BENCH_CHURN")); err == nil && d > 0 {
		return d
	}
	return 60 * time.Second
}

// TestB3WithdrawAndChurn measures scenario B3 on 100k routes ($KBGP_BENCH_ROUTES):
// 90% external IPs of 90 Services and 10% load-balancer IPs of 100 LoadBalancer
// Services. Churn: for $KBGP_BENCH_CHURN (60 s) one of the 10% is withdrawn or
// announced again per status patch, at up to 1000 patches/s; FRR must end with exactly
// the final set and its session must never drop. Withdraw-all: deleting the
// advertisement, timed until FRR holds none of the routes, then re-creating it, timed
// until FRR holds them all again.
func TestB3WithdrawAndChurn(t *testing.T) {
	log.SetLogger(logr.Discard())
	routes := benchRoutes()
	churn := routes / 10
	perLB := churn / b3LBServices
	server, err := apiserver.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Stop()
	l := newPeerLab(t, false, "kbgp")
	agent := kbgpNode(t, server, l)
	peer := l.speakers["kbgp"].addr.String()
	pool := newLBPool(t, server, b3LBServices)
	createExternalIPServices(t, server.Client, "bulk", hostAddrs(bulkStart, routes-churn), (routes-churn)/(bulkServices-10))
	flapping := hostAddrs(b3ChurnBlock.Addr().Next(), perLB*b3LBServices)
	chunk := func(i int) []netip.Addr { return flapping[i*perLB : (i+1)*perLB] }
	restore := func() {
		pool.drive(t, b3ChurnRate, b3LBServices, 0, func(k int, _ []netip.Addr) []netip.Addr { return chunk(k) })
	}
	restore()
	mustCreate(t, server.Client, serviceAdvertisement(kbgpv1.ServiceExternalIP, kbgpv1.ServiceLoadBalancerIP))
	waitNeighbor(t, l.frr, peer, 10*time.Minute, func(s neighborSample) bool { return s.state == "Established" && s.accepted == routes })
	waitQuiet(agent)

	// Churn: patch k toggles address k/100 mod perLB of Service k mod 100.
	before, err := sampleNeighbor(l.frr, peer)
	if err != nil {
		t.Fatal(err)
	}
	load, cpu0 := loadAvg(), procCPU(agent.proc.PID())
	recSum0, rec0 := agent.reconcileTotals(t)
	start := time.Now()
	window := b3ChurnTime()
	rec := pool.drive(t, b3ChurnRate, int(window.Seconds()*b3ChurnRate), window, func(k int, cur []netip.Addr) []netip.Addr {
		a := chunk(k % b3LBServices)[k/b3LBServices%perLB]
		if i := slices.Index(cur, a); i >= 0 {
			return slices.Delete(slices.Clone(cur), i, i+1)
		}
		return append(slices.Clone(cur), a)
	})
	sent := time.Now()
	want := map[string]bool{}
	for _, ips := range pool.ips {
		for _, a := range ips {
			want[a.String()+"/32"] = true
		}
	}
	total := routes - churn + len(want)
	converged := waitChurnSettled(t, l.frr, peer, total, want, 10*time.Minute)
	after, err := sampleNeighbor(l.frr, peer)
	if err != nil {
		t.Fatal(err)
	}
	cpu := procCPU(agent.proc.PID()) - cpu0
	recSum1, rec1 := agent.reconcileTotals(t)
	endToEnd := converged.Sub(start)
	rate := float64(rec.made) / endToEnd.Seconds()
	t.Logf("B3 churn (%d routes, %d flapping in %d Services, asked %d patches/s for %s; load %s at start, %s at the end)",
		routes, perLB*b3LBServices, b3LBServices, b3ChurnRate, window, load, loadAvg())
	t.Logf("| patches made | achieved patches/s | API call p50 / p99 | churn end → FRR exact | route changes/s end to end | vs frr-reload's %d/s | UPDATEs received | session drops | agent CPU | reconciles (mean) |", frrReloadRate)
	t.Logf("|---|---|---|---|---|---|---|---|---|---|")
	t.Logf("| %d | %.0f | %s / %s | %s | %.0f | %.0f× | %d | %d | %s | %d (%s) |", rec.made, rec.achieved(), ms(rec.calls.median()), ms(rec.calls.quantile(0.99)),
		ms(converged.Sub(sent)), rate, rate/frrReloadRate, after.updates-before.updates, after.dropped-before.dropped,
		ms(cpu), rec1-rec0, ms(meanDuration(recSum1-recSum0, rec1-rec0)))
	reportGoal(t, "B3", fmt.Sprintf("churn at %d changes/s ≥ 1000× frr-reload's %d/s end to end", b3ChurnRate, frrReloadRate), rate/frrReloadRate >= 1000,
		"%.0f× (%.0f route changes/s)", rate/frrReloadRate, rate)
	if after.dropped != before.dropped || after.connected != before.connected {
		t.Errorf("the session flapped during churn: connectionsDropped %d → %d, established %d → %d",
			before.dropped, after.dropped, before.connected, after.connected)
	}

	// Withdraw-all and announce-all again, from exactly routes advertised.
	restore()
	waitNeighbor(t, l.frr, peer, 10*time.Minute, func(s neighborSample) bool { return s.accepted == routes })
	var withdraw, announce durations
	for pass := range benchPasses() {
		waitQuiet(agent)
		w, a := withdrawAll(t, server, l.frr, peer, routes)
		t.Logf("pass %d: withdraw-all %s, announce-all %s, load %s", pass+1, ms(w), ms(a), loadAvg())
		withdraw, announce = append(withdraw, w), append(announce, a)
	}
	final, err := sampleNeighbor(l.frr, peer)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("B3 withdraw-all of %d routes (delete the advertisement → FRR holds none): median %s, spread %s, %.0f withdrawals/s = %.0f× frr-reload's %d/s; announce-all again (create it → FRR holds all): median %s, spread %s; ratio to B1 from the same run goes in RESULTS.md (goal ≤ %.1f×)",
		routes, ms(withdraw.median()), withdraw.spread(), float64(routes)/withdraw.median().Seconds(), float64(routes)/withdraw.median().Seconds()/frrReloadRate,
		frrReloadRate, ms(announce.median()), announce.spread(), b3Goal)
	withdrawRate := float64(routes) / withdraw.median().Seconds()
	reportGoal(t, "B3", fmt.Sprintf("withdraw-all ≥ 1000× frr-reload's %d/s", frrReloadRate), withdrawRate/frrReloadRate >= 1000,
		"%.0f× (%.0f withdrawals/s)", withdrawRate/frrReloadRate, withdrawRate)
	if final.dropped != before.dropped {
		t.Errorf("withdraw-all or announce-all dropped the session: connectionsDropped %d → %d", before.dropped, final.dropped)
	}
}

// waitChurnSettled polls until FRR holds total routes from the peer and exactly want
// inside the churn block, and returns when it first did.
func waitChurnSettled(t *testing.T, f *netlab.FRR, peer string, total int, want map[string]bool, timeout time.Duration) time.Time {
	deadline := time.Now().Add(timeout)
	for {
		start := time.Now()
		s, err := sampleNeighbor(f, peer)
		if err != nil {
			t.Fatal(err)
		}
		if s.accepted == total {
			got, err := routesUnder(f, b3ChurnBlock.String())
			if err != nil {
				t.Fatal(err)
			}
			if maps.Equal(got, want) {
				return s.at
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("after churn FRR holds %d routes, want %d", s.accepted, total)
		}
		time.Sleep(time.Until(start.Add(pollEvery)))
	}
}

// withdrawAll deletes the advertisement and times until FRR holds no route from the
// peer, then creates it again and times until FRR holds all of them.
func withdrawAll(t *testing.T, server *apiserver.Server, f *netlab.FRR, peer string, routes int) (withdraw, announce time.Duration) {
	start := time.Now()
	if err := server.Client.Delete(context.Background(), serviceAdvertisement()); err != nil {
		t.Fatal(err)
	}
	gone := waitNeighbor(t, f, peer, 10*time.Minute, func(s neighborSample) bool { return s.accepted == 0 })
	withdraw = gone.at.Sub(start)
	start = time.Now()
	mustCreate(t, server.Client, serviceAdvertisement(kbgpv1.ServiceExternalIP, kbgpv1.ServiceLoadBalancerIP))
	back := waitNeighbor(t, f, peer, 10*time.Minute, func(s neighborSample) bool { return s.accepted == routes })
	return withdraw, back.at.Sub(start)
}
