// Package netlab is a test harness that builds network-namespace topologies
// and runs real BGP routers (FRR bgpd, BIRD 2, gobgpd) inside them.
//
// Every object a Lab creates lives inside network namespaces that the Lab
// created itself (named kbgp-<pid>-<seq>-<short>): veth pairs are created
// with both ends placed directly into lab namespaces, and no address, route or
// link is ever added to the root namespace. Processes are tracked by PID and
// stopped (SIGTERM, then SIGKILL after a bounded wait) by a t.Cleanup
// teardown that also deletes every namespace, on success and on failure.
//
// The harness needs root and the ip(8) command; it fails (never skips) when
// they are missing, because the tests are meant to run in CI as root.
//
// Methods that take no *testing.T report problems with t.Fatalf on the
// Lab's test and therefore must be called from the test goroutine; the
// methods returning an error (Exec, Vtysh, Neighbor, Routes, ...) are safe to
// call from any goroutine.
package netlab

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Forbidden address ranges: the host's own network. The harness refuses to
// configure them anywhere, even inside a namespace.
var forbiddenPrefixes = []netip.Prefix{
	netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("fd00::/64"),
}

// Allowed address ranges inside lab namespaces.
var allowedPrefixes = []netip.Prefix{
	netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("10.0.0.0/8"),
	netip.MustParsePrefix("172.16.0.0/16"),
	netip.MustParsePrefix("2001:db8::/32"),
}

// DefaultCommandTimeout bounds every short-lived command the harness runs
// (ip, sysctl, vtysh, birdc, gobgp, ...).
const DefaultCommandTimeout = 30 * time.Second

// labSeq numbers the labs of one test binary so that labs of different tests
// (also parallel ones) never share a namespace name.
var labSeq atomic.Int64

// NamespacePrefix returns the prefix shared by every namespace created by
// labs of this process: "kbgp-<pid>-". Use it to check for leaks.
func NamespacePrefix() string {
	return fmt.Sprintf("kbgp-%d-", os.Getpid())
}

// TB is what a Lab needs of its owner: a test's testing.TB, or a command that
// runs a topology outside `go test` (test/cluster's kbgp-cluster, behind
// `make cluster`), whose Fatalf tears everything down and exits.
type TB interface {
	Helper()
	Logf(format string, args ...any)
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	Failed() bool
	Cleanup(func())
}

// Lab is one topology: a set of namespaces, links, processes and relays that
// are torn down together when the test ends.
type Lab struct {
	t      TB
	dir    string
	prefix string

	mu         sync.Mutex
	namespaces []*Namespace
	procs      []*Process
	relays     []*Relay
	diags      []diagnostic
	torn       bool
	seq        int
	deadline   *time.Timer
	teardownMu sync.Mutex
}

type diagnostic struct {
	name string
	fn   func() string
}

// New creates a Lab for t and registers its teardown with t.Cleanup. It
// fails the test if not running as root or if ip(8) is missing.
//
// The lab's working directory (configs, logs, sockets) is a fresh directory
// under os.TempDir() with mode 0755 so that daemons dropping privileges (FRR
// runs as user frr) can read their configuration. It is removed on teardown
// unless the environment variable KBGP_NETLAB_KEEP is set to a non-empty
// value.
func New(t TB) *Lab {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatalf("netlab: must run as root (euid=%d): network namespaces and BGP daemons need CAP_NET_ADMIN/CAP_SYS_ADMIN", os.Geteuid())
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Fatalf("netlab: the ip command (iproute2) is required: %v", err)
	}
	dir, err := os.MkdirTemp("", "kbgp-lab-")
	if err != nil {
		t.Fatalf("netlab: creating lab dir: %v", err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatalf("netlab: chmod lab dir: %v", err)
	}
	n := labSeq.Add(1)
	l := &Lab{
		t:      t,
		dir:    dir,
		prefix: fmt.Sprintf("%s%d-", NamespacePrefix(), n),
	}
	t.Cleanup(l.teardown)
	// If the test binary is killed by -timeout, t.Cleanup never runs. Tear
	// down shortly before the deadline so that no namespaces and daemons are
	// leaked in that case either.
	if tt, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if dl, ok := tt.Deadline(); ok {
			margin := 10 * time.Second
			if d := time.Until(dl) - margin; d > 0 {
				l.deadline = time.AfterFunc(d, func() {
					fmt.Fprintf(os.Stderr, "netlab: test binary deadline approaching, tearing down lab %s\n", l.prefix)
					l.teardownQuiet()
				})
			}
		}
	}
	return l
}

// Dir returns the lab's working directory (configs, logs, sockets).
func (l *Lab) Dir() string { return l.dir }

// Prefix returns the name prefix of this lab's namespaces
// ("kbgp-<pid>-<seq>-").
func (l *Lab) Prefix() string { return l.prefix }

// T returns the test the lab belongs to.
func (l *Lab) T() TB { return l.t }

// Namespaces returns the namespaces created so far.
func (l *Lab) Namespaces() []*Namespace {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]*Namespace(nil), l.namespaces...)
}

// AddDiagnostic registers a function whose output is logged if the test has
// failed when the lab is torn down (before processes are stopped).
func (l *Lab) AddDiagnostic(name string, fn func() string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.diags = append(l.diags, diagnostic{name: name, fn: fn})
}

func (l *Lab) nextSeq() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	return l.seq
}

var shortRe = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)

// Namespace creates the network namespace "<lab prefix><short>" (short must
// be lower-case alphanumeric, '-' or '_'), brings its loopback up, disables
// IPv6 duplicate address detection so that addresses are usable at once,
// and returns it. It is deleted on teardown.
func (l *Lab) Namespace(short string) *Namespace {
	l.t.Helper()
	if !shortRe.MatchString(short) || len(short) > 20 {
		l.t.Fatalf("netlab: invalid namespace short name %q", short)
	}
	l.mu.Lock()
	torn := l.torn
	l.mu.Unlock()
	if torn {
		l.t.Fatalf("netlab: lab already torn down")
	}
	ns := &Namespace{lab: l, Name: l.prefix + short, Short: short}
	if out, err := runCmd(DefaultCommandTimeout, "ip", "netns", "add", ns.Name); err != nil {
		l.t.Fatalf("netlab: ip netns add %s: %v: %s", ns.Name, err, out)
	}
	l.mu.Lock()
	l.namespaces = append(l.namespaces, ns)
	l.mu.Unlock()
	ns.mustIP("link", "set", "lo", "up")
	for _, kv := range []string{
		"net.ipv6.conf.all.accept_dad=0",
		"net.ipv6.conf.default.accept_dad=0",
	} {
		if out, err := ns.Exec("sysctl", "-q", "-w", kv); err != nil {
			l.t.Fatalf("netlab: %s: sysctl %s: %v: %s", ns.Name, kv, err, out)
		}
	}
	return ns
}

// Link creates a veth pair between namespaces a and b, with interface aIf in
// a and bIf in b (at most 15 characters each), adds the given addresses (CIDR
// strings, IPv4 and/or IPv6; IPv6 ones with nodad) and sets both ends up.
// The pair is created directly inside the namespaces: no link ever exists in
// the root namespace.
func (l *Lab) Link(a *Namespace, aIf string, aAddrs []string, b *Namespace, bIf string, bAddrs []string) {
	l.t.Helper()
	if a == nil || b == nil || a.lab != l || b.lab != l {
		l.t.Fatalf("netlab: Link: namespaces must belong to this lab")
	}
	for _, n := range []string{aIf, bIf} {
		if n == "" || len(n) > 15 || strings.ContainsAny(n, " /:") {
			l.t.Fatalf("netlab: Link: invalid interface name %q (1..15 chars, no '/', ':' or spaces)", n)
		}
	}
	if a == b && aIf == bIf {
		l.t.Fatalf("netlab: Link: both ends named %q in the same namespace", aIf)
	}
	for _, c := range append(append([]string(nil), aAddrs...), bAddrs...) {
		if err := checkCIDR(c); err != nil {
			l.t.Fatalf("netlab: Link: %v", err)
		}
	}
	// "ip -n A link add X type veth peer name Y netns B" enters namespace A
	// first, so the pair is born inside A (X) and B (Y).
	a.mustIP("link", "add", aIf, "type", "veth", "peer", "name", bIf, "netns", b.Name)
	for _, c := range aAddrs {
		a.AddAddr(aIf, c)
	}
	for _, c := range bAddrs {
		b.AddAddr(bIf, c)
	}
	a.mustIP("link", "set", aIf, "up")
	b.mustIP("link", "set", bIf, "up")
}

func checkCIDR(c string) error {
	p, err := netip.ParsePrefix(c)
	if err != nil {
		return fmt.Errorf("address %q is not a CIDR: %v", c, err)
	}
	return checkAddr(p.Addr(), c)
}

func checkAddr(a netip.Addr, orig string) error {
	a = a.Unmap()
	for _, f := range forbiddenPrefixes {
		if f.Contains(a) {
			return fmt.Errorf("address %q is in %s, the host's own network: refused", orig, f)
		}
	}
	if a.IsLoopback() || a.IsLinkLocalUnicast() {
		return nil
	}
	for _, p := range allowedPrefixes {
		if p.Contains(a) {
			return nil
		}
	}
	return fmt.Errorf("address %q is outside the lab ranges (198.51.100.0/24, 203.0.113.0/24, 10/8, 172.16/16, 2001:db8::/32)", orig)
}

// teardown is the t.Cleanup hook.
func (l *Lab) teardown() {
	if l.deadline != nil {
		l.deadline.Stop()
	}
	if l.t.Failed() {
		l.dumpDiagnostics()
	}
	errs, notes := l.doTeardown()
	for _, n := range notes {
		l.t.Logf("netlab teardown: %s", n)
	}
	for _, e := range errs {
		l.t.Errorf("netlab teardown: %v", e)
	}
	if l.t.Failed() {
		l.dumpLogs()
	}
	if os.Getenv("KBGP_NETLAB_KEEP") != "" {
		l.t.Logf("netlab: keeping lab dir %s (KBGP_NETLAB_KEEP set)", l.dir)
		return
	}
	if err := os.RemoveAll(l.dir); err != nil {
		l.t.Errorf("netlab teardown: removing %s: %v", l.dir, err)
	}
}

// teardownQuiet tears down without using the TB (used from the
// deadline timer, where the test may be in any state).
func (l *Lab) teardownQuiet() {
	errs, notes := l.doTeardown()
	for _, n := range notes {
		fmt.Fprintf(os.Stderr, "netlab teardown: %s\n", n)
	}
	for _, e := range errs {
		fmt.Fprintf(os.Stderr, "netlab teardown: %v\n", e)
	}
	if os.Getenv("KBGP_NETLAB_KEEP") == "" {
		_ = os.RemoveAll(l.dir)
	}
}

// doTeardown stops relays and processes and deletes namespaces. It is
// idempotent and safe to call concurrently. errs are real problems; notes
// are informational (e.g. descendants of lab processes killed).
func (l *Lab) doTeardown() (errs []error, notes []string) {
	l.teardownMu.Lock()
	defer l.teardownMu.Unlock()
	l.mu.Lock()
	l.torn = true
	relays := append([]*Relay(nil), l.relays...)
	procs := append([]*Process(nil), l.procs...)
	nss := append([]*Namespace(nil), l.namespaces...)
	l.relays, l.procs, l.namespaces = nil, nil, nil
	l.mu.Unlock()

	for _, r := range relays {
		r.Close()
	}
	// SIGTERM everything first, then wait for all with one bounded budget,
	// then SIGKILL what is left.
	for i := len(procs) - 1; i >= 0; i-- {
		procs[i].Signal(syscall.SIGTERM)
	}
	deadline := time.Now().Add(5 * time.Second)
	for _, p := range procs {
		p.waitUntil(deadline)
	}
	for _, p := range procs {
		if !p.Exited() {
			p.Signal(syscall.SIGKILL)
			if !p.waitUntil(time.Now().Add(3 * time.Second)) {
				errs = append(errs, fmt.Errorf("process %s (pid %d) did not exit after SIGKILL", p.name, p.PID()))
			}
		}
	}
	for i := len(nss) - 1; i >= 0; i-- {
		ns := nss[i]
		// Safety net: anything still running inside a namespace this lab
		// created was started (directly or as a descendant) by this lab.
		// Kill it by PID, otherwise the namespace would stay alive.
		if out, err := runCmd(DefaultCommandTimeout, "ip", "netns", "pids", ns.Name); err == nil {
			for _, f := range strings.Fields(out) {
				pid, err := strconv.Atoi(f)
				if err != nil || pid <= 1 || pid == os.Getpid() {
					continue
				}
				notes = append(notes, fmt.Sprintf("namespace %s: leftover pid %d (a descendant of a lab process) killed", ns.Name, pid))
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		if out, err := runCmd(DefaultCommandTimeout, "ip", "netns", "del", ns.Name); err != nil {
			errs = append(errs, fmt.Errorf("ip netns del %s: %v: %s", ns.Name, err, out))
		}
	}
	return errs, notes
}

func (l *Lab) dumpDiagnostics() {
	l.mu.Lock()
	diags := append([]diagnostic(nil), l.diags...)
	l.mu.Unlock()
	for _, d := range diags {
		l.t.Logf("netlab diagnostics %s:\n%s", d.name, indent(d.fn()))
	}
}

func (l *Lab) dumpLogs() {
	files, _ := filepath.Glob(filepath.Join(l.dir, "*", "*.log"))
	for _, pat := range []string{"*.log", "*/*/*.log"} {
		more, _ := filepath.Glob(filepath.Join(l.dir, pat))
		files = append(files, more...)
	}
	sort.Strings(files)
	for _, f := range files {
		l.t.Logf("netlab log %s (tail):\n%s", f, indent(tailFile(f, 60)))
	}
}

func indent(s string) string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return "    (empty)"
	}
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}

func tailFile(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(%v)", err)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("... (%d lines omitted)", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}

// runCmd runs a short-lived command with a timeout and returns its combined
// output.
func runCmd(timeout time.Duration, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.WaitDelay = 2 * time.Second
	out, err := cmd.CombinedOutput()
	if ctx.Err() == context.DeadlineExceeded {
		err = fmt.Errorf("%s: timed out after %s", name, timeout)
	}
	return string(out), err
}

// WaitFor polls cond every interval until it returns true, failing the test
// with cond's last diagnostic string if it has not within timeout. Both the
// number of polls and the total time are bounded.
func WaitFor(t TB, timeout, interval time.Duration, cond func() (bool, string)) {
	t.Helper()
	if err := Poll(timeout, interval, cond); err != nil {
		t.Fatalf("netlab: %v", err)
	}
}

// Poll is WaitFor returning an error instead of failing the test.
func Poll(timeout, interval time.Duration, cond func() (bool, string)) error {
	if interval < 10*time.Millisecond {
		interval = 10 * time.Millisecond
	}
	start := time.Now()
	deadline := start.Add(timeout)
	maxPolls := int(timeout/interval) + 2
	last := ""
	for i := 0; i < maxPolls; i++ {
		ok, msg := cond()
		if ok {
			return nil
		}
		last = msg
		if time.Now().After(deadline) {
			break
		}
		sleep := interval
		if rem := time.Until(deadline); rem < sleep {
			sleep = rem
		}
		if sleep > 0 {
			time.Sleep(sleep)
		}
	}
	return fmt.Errorf("condition not met within %s (%d polls): %s", timeout, maxPolls, last)
}

// truncate shortens command output quoted in an error.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "...(truncated)"
}
