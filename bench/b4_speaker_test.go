//go:build bench

package bench

import (
	"context"
	"net/netip"
	"os"
	"runtime"
	"runtime/pprof"
	"syscall"
	"testing"
	"time"

	"kbgp.io/kbgp/internal/bgp"
	kbgpgobgp "kbgp.io/kbgp/internal/bgp/gobgp"
	"kbgp.io/kbgp/internal/testing/gobgptest"
)

// TestB4Speaker measures, inside one process, what B4 and B1m ask of the speaker
// library alone: the time from a session's Established to its first UPDATE and to
// its last prefix with the bulk routes ($KBGP_BENCH_ROUTES, 100k) exported, and the
// heap those routes cost. kbgp's GoBGP adapter dials a plain GoBGP router on
// loopback, which timestamps Established and each UPDATE as it reads them (GoBGP's
// own event times, to the microsecond). Each pass resets the session from the router
// and times the new one. $KBGP_BENCH_CPUPROFILE writes a CPU profile of the passes,
// $KBGP_BENCH_HEAPPROFILE a heap profile once the routes are loaded.
//
// This isolates the speaker: no API server, informer or agent around it, and no
// kernel between the two ends but loopback. B1 measures the whole agent against FRR.
func TestB4Speaker(t *testing.T) {
	n := benchRoutes()
	local, remote := netip.MustParseAddr("127.0.0.61"), netip.MustParseAddr("127.0.0.62")
	up := gobgptest.Start(t, remote, 65010)
	arrivals := make(chan gobgptest.Arrival, 1<<16)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := up.Upstream.WatchArrivals(ctx, func(a gobgptest.Arrival) { arrivals <- a }); err != nil {
		t.Fatal(err)
	}

	heapBefore := heapInUse()
	r, err := kbgpgobgp.Factory{}.NewRouter(ctx, bgp.InstanceKey{LocalASN: 65001}, bgp.Global{ASN: 65001, RouterID: netip.MustParseAddr("10.0.0.1")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Stop(context.Background(), false) })
	export := make([]bgp.Path, n)
	for i, a := range hostAddrs(bulkStart, n) {
		export[i] = bgp.Path{Prefix: netip.PrefixFrom(a, 32), Attributes: bgp.PathAttributes{Communities: []uint32{65001<<16 | 100}}}
	}
	peer := bgp.Peer{
		Name: "up", Address: remote, ASN: 65010, Port: up.Port, LocalAddress: local,
		Families:        []bgp.Family{bgp.FamilyIPv4Unicast},
		Timers:          bgp.Timers{ConnectRetry: time.Second, HoldTime: 90 * time.Second, Keepalive: 30 * time.Second},
		GracefulRestart: bgp.GracefulRestart{Enabled: true, RestartTime: 120 * time.Second},
	}
	loadStart, cpuStart := time.Now(), processCPU()
	if err := r.AddPeer(ctx, peer, export); err != nil {
		t.Fatal(err)
	}
	t.Logf("loading %d routes into the speaker: %s wall, %s CPU", n, ms(time.Since(loadStart)), ms(processCPU()-cpuStart))
	export = nil
	heapAfter := heapInUse()
	perRoute := float64(heapAfter-heapBefore) / float64(n)
	t.Logf("speaker heap: %.1f MiB before, %.1f MiB with the routes → %.0f B/route", mib(heapBefore), mib(heapAfter), perRoute)
	writeHeapProfile(t)

	stopProfile := startCPUProfile(t)
	var first, all durations
	var cpus durations
	for pass := range benchPasses() + 1 {
		if pass > 0 {
			up.Reset(t, local)
		}
		if pass == 0 {
			up.AddNeighbor(t, local, 65001, gobgptest.WithGracefulRestart(120*time.Second))
		}
		f, a, cpu := timeSession(t, arrivals, local, n)
		t.Logf("pass %d: Established → first UPDATE %s, → all %d prefixes %s, process CPU %s", pass, ms(f), n, ms(a), ms(cpu))
		if pass == 0 {
			continue // the first session also pays for connecting; only resets are counted
		}
		first, all, cpus = append(first, f), append(all, a), append(cpus, cpu)
	}
	stopProfile()
	t.Logf("median of %d resets: → first UPDATE %s (spread %s), → all %s (spread %s), CPU %s",
		len(first), ms(first.median()), first.spread(), ms(all.median()), all.spread(), ms(cpus.median()))
	reportGoal(t, "B4", "first UPDATE ≤ 100 ms after Established (speaker alone)", first.median() <= 100*time.Millisecond, "%s at %d routes", ms(first.median()), n)
	reportGoal(t, "B1m", "speaker heap ≤ 1.2 KiB/route", perRoute <= 1.2*1024, "%.0f B/route", perRoute)
}

// timeSession waits for the next Established from local and then for n prefixes from
// it, and returns both times after Established and the process CPU spent meanwhile.
func timeSession(t *testing.T, arrivals <-chan gobgptest.Arrival, local netip.Addr, n int) (first, all, cpu time.Duration) {
	t.Helper()
	var est time.Time
	var cpu0 time.Duration
	got := 0
	deadline := time.After(2 * time.Minute)
	for {
		select {
		case a := <-arrivals:
			if a.Neighbor != local {
				continue
			}
			switch {
			case a.Established:
				est, got, first, cpu0 = a.At, 0, 0, processCPU()
			case !est.IsZero() && a.Prefixes > 0:
				if got == 0 {
					first = a.At.Sub(est)
				}
				got += a.Prefixes
				if got >= n {
					return first, a.At.Sub(est), processCPU() - cpu0
				}
			}
		case <-deadline:
			t.Fatalf("no session with %d prefixes from %s within 2 minutes (got %d)", n, local, got)
		}
	}
}

// heapInUse is the live heap after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

// processCPU is this process's user + system time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// startCPUProfile profiles the process into $KBGP_BENCH_CPUPROFILE, if set, until the
// returned function is called.
func startCPUProfile(t *testing.T) (stop func()) {
	path := os.Getenv("KBGP_BENCH_CPUPROFILE")
	if path == "" {
		return func() {}
	}
	return cpuProfile(t, path)
}

// writeHeapProfile writes the live heap to $KBGP_BENCH_HEAPPROFILE, if set.
func writeHeapProfile(t *testing.T) {
	path := os.Getenv("KBGP_BENCH_HEAPPROFILE")
	if path == "" {
		return
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	runtime.GC()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		t.Fatal(err)
	}
}
