//go:build bench

package bench

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// benchRoutes is the bulk route count of B1–B3: 100k, or $KBGP_BENCH_ROUTES (rounded
// down to a multiple of bulkServices).
func benchRoutes() int {
	if n, err := strconv.Atoi(os.Getenv("KBGP_BENCH_ROUTES")); err == nil && n >= bulkServices {
		return n / bulkServices * bulkServices
	}
	return 100_000
}

// benchPasses is how many passes a scenario makes for its median: 3, or
// $KBGP_BENCH_PASSES.
func benchPasses() int {
	if n, err := strconv.Atoi(os.Getenv("KBGP_BENCH_PASSES")); err == nil && n > 0 {
		return n
	}
	return 3
}

// durations is a sample of measured times.
type durations []time.Duration

// quantile is the nearest-rank q-quantile (0 < q ≤ 1); 0 for an empty sample.
func (d durations) quantile(q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.999999) - 1
	return s[max(0, min(i, len(s)-1))]
}

func (d durations) median() time.Duration { return d.quantile(0.5) }

// spread is "min–max" of the sample.
func (d durations) spread() string {
	if len(d) == 0 {
		return "-"
	}
	return fmt.Sprintf("%s–%s", ms(slices.Min(d)), ms(slices.Max(d)))
}

// ms formats a duration in milliseconds with one decimal, the unit of every table.
func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 1, 64) + " ms"
}

// loadAvg is the 1-minute load average, recorded with every result because the
// machine's 2 cores are shared.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(b))[0]
}

// procRSS is a process's resident set (VmRSS) and its peak (VmHWM), in bytes.
func procRSS(pid int) (rss, hwm int64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || (k != "VmRSS" && k != "VmHWM") {
			continue
		}
		f := strings.Fields(v)
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, 0, err
		}
		if k == "VmRSS" {
			rss = kb * 1024
		} else {
			hwm = kb * 1024
		}
	}
	return rss, hwm, nil
}

// procCPU is a process's user + system CPU time.
func procCPU(pid int) time.Duration {
	own, _ := statCPU(fmt.Sprintf("/proc/%d/stat", pid))
	return own
}

// statCPU reads a /proc/PID/stat file's CPU times: the process's own (user + system)
// and that of the children it has waited for; zero when the file cannot be read.
func statCPU(path string) (own, reaped time.Duration) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, 0
	}
	// Fields after the command name (which may hold spaces) start after the last ')'.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	ticks := func(i int) time.Duration {
		n, _ := strconv.ParseInt(f[i], 10, 64)
		return time.Duration(n) * (time.Second / clockTicks)
	}
	return ticks(11) + ticks(12), ticks(13) + ticks(14)
}

// clockTicks is USER_HZ, the unit of /proc/PID/stat's CPU times on Linux.
const clockTicks = 100

// busyLoops starts $KBGP_BENCH_BUSY goroutines that only spin, so that a scenario
// runs with its cores shared (load ≈ that number on top of the benchmark's own), and
// returns what stops them.
func busyLoops() (stop func()) {
	n, _ := strconv.Atoi(os.Getenv("KBGP_BENCH_BUSY"))
	done := make(chan struct{})
	for range max(n, 0) {
		go func() {
			for {
				select {
				case <-done:
					return
				default:
				}
			}
		}()
	}
	return func() { close(done) }
}
