package netlab

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// BIRD is a running BIRD 2 daemon inside a namespace.
type BIRD struct {
	ns       *Namespace
	dir      string
	confPath string
	ctlPath  string
	logPath  string
	// Proc is the bird process (run in the foreground with -f).
	Proc *Process
}

// StartBIRD writes bird.conf and starts BIRD 2 in ns, then waits until birdc
// answers. The harness writes only a header (log file, protocol state/event
// debugging); rawConfig must hold everything else, including "router id"
// when the namespace has no IPv4 address, and the protocols.
//
// Practical notes for BGP protocols in tests: BIRD delays its first
// connect by 5 s ("connect delay time") and, after a session error such as
// a received NOTIFICATION, refuses the peer for 60 s or more ("error wait
// time"); use e.g. "connect delay time 1; connect retry time 1; error wait
// time 1,5;" to keep tests fast. On a directly connected IPv6 session BIRD
// sends a link-local next hop too, which FRR without zebra rejects (see
// FRRConfig.RawConfig); "multihop;" avoids it.
func StartBIRD(ns *Namespace, rawConfig string) *BIRD {
	t := ns.lab.t
	t.Helper()
	for _, bin := range []string{"bird", "birdc"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Fatalf("netlab: StartBIRD: %s not found: %v", bin, err)
		}
	}
	dir := ns.subdir("bird")
	b := &BIRD{
		ns:       ns,
		dir:      dir,
		confPath: filepath.Join(dir, "bird.conf"),
		ctlPath:  filepath.Join(dir, "bird.ctl"),
		logPath:  filepath.Join(dir, "bird.log"),
	}
	if err := b.writeConfig(rawConfig); err != nil {
		t.Fatalf("netlab: %v", err)
	}
	b.Proc = ns.Start("bird", "bird", "-f", "-c", b.confPath, "-s", b.ctlPath, "-P", filepath.Join(dir, "bird.pid"))
	ns.lab.AddDiagnostic(ns.Name+" BIRD", b.diagnostics)
	WaitFor(t, 20*time.Second, 100*time.Millisecond, func() (bool, string) {
		if b.Proc.Exited() {
			t.Fatalf("netlab: bird in %s exited during startup (%v):\n%s\nconfig:\n%s",
				ns.Name, b.Proc.Err(), b.Proc.Log(), b.renderConfig(rawConfig))
		}
		out, err := b.Birdc("show", "status")
		if err != nil {
			return false, fmt.Sprintf("birdc: %v: %s", err, out)
		}
		return strings.Contains(out, "Daemon is up"), "birdc: " + out
	})
	return b
}

func (b *BIRD) renderConfig(raw string) string {
	return fmt.Sprintf("log %q all;\ndebug protocols { states, events };\n\n%s\n", b.logPath, raw)
}

func (b *BIRD) writeConfig(raw string) error {
	return os.WriteFile(b.confPath, []byte(b.renderConfig(raw)), 0o644)
}

// Namespace returns the namespace bird runs in.
func (b *BIRD) Namespace() *Namespace { return b.ns }

// ConfigPath returns the path of the generated bird.conf.
func (b *BIRD) ConfigPath() string { return b.confPath }

// Log returns the content of bird's log file.
func (b *BIRD) Log() string {
	data, err := os.ReadFile(b.logPath)
	if err != nil {
		return fmt.Sprintf("(reading %s: %v)", b.logPath, err)
	}
	return string(data)
}

// Birdc runs "birdc -s CTL args..." and returns its output. birdc talks to
// bird over the control socket, so it runs in the root namespace.
func (b *BIRD) Birdc(args ...string) (string, error) {
	out, err := runCmd(DefaultCommandTimeout, "birdc", append([]string{"-s", b.ctlPath}, args...)...)
	if err != nil {
		return out, fmt.Errorf("birdc %s: %w", strings.Join(args, " "), err)
	}
	return out, nil
}

// Reconfigure rewrites the configuration (same header as StartBIRD) and runs
// "birdc configure".
func (b *BIRD) Reconfigure(rawConfig string) error {
	if err := b.writeConfig(rawConfig); err != nil {
		return err
	}
	out, err := b.Birdc("configure")
	if err != nil {
		return err
	}
	if !strings.Contains(out, "Reconfigured") && !strings.Contains(out, "Reconfiguration in progress") {
		return fmt.Errorf("birdc configure: %s", strings.TrimSpace(out))
	}
	return nil
}

// EnableProtocol runs "birdc enable NAME".
func (b *BIRD) EnableProtocol(name string) error {
	_, err := b.Birdc("enable", name)
	return err
}

// DisableProtocol runs "birdc disable NAME" (a BGP protocol sends a Cease
// NOTIFICATION).
func (b *BIRD) DisableProtocol(name string) error {
	_, err := b.Birdc("disable", name)
	return err
}

func (b *BIRD) diagnostics() string {
	out, err := b.Birdc("show", "protocols", "all")
	if err != nil {
		out += fmt.Sprintf("(error: %v)\n", err)
	}
	r, err := b.Birdc("show", "route", "all")
	if err != nil {
		r += fmt.Sprintf("(error: %v)\n", err)
	}
	return out + r
}

// BIRDProtocol is the parsed output of "birdc show protocols all NAME".
type BIRDProtocol struct {
	Name  string
	Proto string // "BGP", "Static", ...
	Table string
	// State is the protocol state column: "up", "start", "down", ...
	State string
	Since string
	// Info is the info column, e.g. "Established" or "Active  Socket:
	// Connection refused".
	Info string
	// BGPState is "BGP state:" (Idle, Connect, Active, OpenSent,
	// OpenConfirm, Established, Close, Down); empty for non-BGP protocols.
	BGPState        string
	NeighborAddress string
	NeighborAS      string
	NeighborID      string
	// LastError is "Last error:", e.g. "Received: Administrative shutdown".
	LastError string
	// HoldTimer and KeepaliveTimer are "Hold timer:"/"Keepalive timer:"
	// values such as "5.494/9" (remaining/negotiated).
	HoldTimer      string
	KeepaliveTimer string
	// Raw is the complete birdc output.
	Raw string
}

// Protocol returns the state of protocol name.
func (b *BIRD) Protocol(name string) (BIRDProtocol, error) {
	out, err := b.Birdc("show", "protocols", "all", name)
	if err != nil {
		return BIRDProtocol{Raw: out}, err
	}
	return parseBIRDProtocol(name, out)
}

func parseBIRDProtocol(name, out string) (BIRDProtocol, error) {
	p := BIRDProtocol{Raw: out}
	sc := bufio.NewScanner(strings.NewReader(out))
	found := false
	for sc.Scan() {
		line := sc.Text()
		if !found {
			f := strings.Fields(line)
			if len(f) >= 5 && f[0] == name {
				found = true
				p.Name, p.Proto, p.Table, p.State, p.Since = f[0], f[1], f[2], f[3], f[4]
				if len(f) > 5 {
					// Keep the info column's inner spacing.
					idx := strings.Index(line, f[4]) + len(f[4])
					p.Info = strings.TrimSpace(line[idx:])
				}
			}
			continue
		}
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch k {
		case "BGP state":
			p.BGPState = v
		case "Neighbor address":
			p.NeighborAddress = v
		case "Neighbor AS":
			p.NeighborAS = v
		case "Neighbor ID":
			p.NeighborID = v
		case "Last error":
			p.LastError = v
		case "Hold timer":
			p.HoldTimer = v
		case "Keepalive timer":
			p.KeepaliveTimer = v
		}
	}
	if !found {
		return p, fmt.Errorf("birdc: protocol %s not found: %s", name, strings.TrimSpace(out))
	}
	return p, nil
}

// sinceJitter is how far two readings of one unchanged BIRD "since" may differ.
// BIRD does not print the time it stored: it prints its wall clock now minus the
// monotonic time elapsed since the change, with the monotonic clock read at the
// start of its event loop's turn (tm_format_time in sysdep/unix/io.c), so one state
// change can read a millisecond apart from one "show protocols" to the next (seen in
// CI: .291, then .292). A restart moves it by the whole reconnect: at least the
// speakers' connect retry, a second or more in these tests.
const sinceJitter = 100 * time.Millisecond

// SameStateChange reports whether p and before show the same last state change of
// one protocol: the same state, and "since" times (BIRD's default protocol time
// format, "15:04:05.000") within BIRD's jitter. A reading it cannot parse is a change.
func (p BIRDProtocol) SameStateChange(before BIRDProtocol) bool {
	const layout = "15:04:05.000"
	now, errNow := time.Parse(layout, p.Since)
	then, errThen := time.Parse(layout, before.Since)
	if errNow != nil || errThen != nil || p.State != before.State {
		return false
	}
	d := now.Sub(then).Abs()
	return min(d, 24*time.Hour-d) <= sinceJitter // either side of midnight
}

// WaitEstablished waits until BGP protocol name is Established.
func (b *BIRD) WaitEstablished(t TB, protocol string, timeout time.Duration) BIRDProtocol {
	t.Helper()
	return b.WaitProtocol(t, protocol, timeout, func(p BIRDProtocol) bool { return p.BGPState == "Established" })
}

// WaitProtocol waits until cond accepts protocol name's state.
func (b *BIRD) WaitProtocol(t TB, protocol string, timeout time.Duration, cond func(BIRDProtocol) bool) BIRDProtocol {
	t.Helper()
	var last BIRDProtocol
	WaitFor(t, timeout, 200*time.Millisecond, func() (bool, string) {
		p, err := b.Protocol(protocol)
		if err != nil {
			return false, err.Error()
		}
		last = p
		return cond(p), fmt.Sprintf("BIRD %s protocol %s: state %q, BGP state %q, info %q, last error %q",
			b.ns.Name, protocol, p.State, p.BGPState, p.Info, p.LastError)
	})
	return last
}

// BIRDRoute is one route of "birdc show route all".
type BIRDRoute struct {
	Prefix string
	// Kind is the route type word: "unicast", "unreachable", "blackhole", ...
	Kind string
	// Proto is the protocol the route came from.
	Proto string
	// Primary is set for the preferred route ("*").
	Primary bool
	// Via is the first "via ADDR" nexthop, if any.
	Via string
	// ASPath is BGP.as_path.
	ASPath string
	// NextHop is BGP.next_hop.
	NextHop string
	// LocalPref is BGP.local_pref ("" when absent).
	LocalPref string
	// Communities are BGP.community, normalized to "ASN:VALUE".
	Communities []string
	// LargeCommunities are BGP.large_community, normalized to "A:B:C".
	LargeCommunities []string
	// Attrs holds every "Name: value" attribute line.
	Attrs map[string]string
	// Alternatives are the non-primary routes for the same prefix (only
	// set on the route returned in the map).
	Alternatives []BIRDRoute
}

// HasCommunity reports whether the route carries community c ("65000:1").
func (r BIRDRoute) HasCommunity(c string) bool { return slices.Contains(r.Communities, c) }

// HasLargeCommunity reports whether the route carries large community c
// ("65000:1:2").
func (r BIRDRoute) HasLargeCommunity(c string) bool { return slices.Contains(r.LargeCommunities, c) }

// Routes returns "birdc show route all table TABLE" (TABLE "" means all
// tables) keyed by prefix; the value is the primary route with the others in
// Alternatives.
func (b *BIRD) Routes(table string) (map[string]BIRDRoute, error) {
	args := []string{"show", "route", "all"}
	if table != "" {
		args = append(args, "table", table)
	}
	out, err := b.Birdc(args...)
	if err != nil {
		return nil, err
	}
	return parseBIRDRoutes(out), nil
}

// routeHeadRe matches the first line of a route:
// "203.0.113.0/24       unicast [r1 09:33:00.123] * (100) [AS65010i]"
// or, for further routes of the same prefix, the same without the prefix.
var routeHeadRe = regexp.MustCompile(`^(\S+)?\s+(\S+)\s+\[(\S+)\s[^\]]*\](\s+\*)?`)

var birdPairRe = regexp.MustCompile(`\(\s*(\d+)\s*,\s*(\d+)\s*\)`)
var birdTripleRe = regexp.MustCompile(`\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)`)

func parseBIRDRoutes(out string) map[string]BIRDRoute {
	var all []BIRDRoute
	var cur *BIRDRoute
	prefix := ""
	flush := func() {
		if cur != nil {
			all = append(all, *cur)
			cur = nil
		}
	}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "BIRD ") || strings.HasPrefix(line, "Table ") {
			if strings.HasPrefix(line, "Table ") {
				flush()
			}
			continue
		}
		if strings.HasPrefix(line, "\t") {
			if cur == nil {
				continue
			}
			s := strings.TrimSpace(line)
			if strings.HasPrefix(s, "via ") {
				if cur.Via == "" {
					if f := strings.Fields(s); len(f) >= 2 {
						cur.Via = f[1]
					}
				}
				continue
			}
			k, v, ok := strings.Cut(s, ":")
			if !ok {
				continue
			}
			v = strings.TrimSpace(v)
			cur.Attrs[k] = v
			switch k {
			case "BGP.as_path":
				cur.ASPath = v
			case "BGP.next_hop":
				cur.NextHop = v
			case "BGP.local_pref":
				cur.LocalPref = v
			case "BGP.community":
				for _, m := range birdPairRe.FindAllStringSubmatch(v, -1) {
					cur.Communities = append(cur.Communities, m[1]+":"+m[2])
				}
			case "BGP.large_community":
				for _, m := range birdTripleRe.FindAllStringSubmatch(v, -1) {
					cur.LargeCommunities = append(cur.LargeCommunities, m[1]+":"+m[2]+":"+m[3])
				}
			}
			continue
		}
		m := routeHeadRe.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		flush()
		if m[1] != "" {
			prefix = m[1]
		}
		if prefix == "" {
			continue
		}
		cur = &BIRDRoute{Prefix: prefix, Kind: m[2], Proto: m[3], Primary: m[4] != "", Attrs: map[string]string{}}
	}
	flush()
	res := map[string]BIRDRoute{}
	for _, r := range all {
		if r.Primary {
			if old, ok := res[r.Prefix]; ok && !old.Primary {
				r.Alternatives = append(r.Alternatives, old.Alternatives...)
				old.Alternatives = nil
				r.Alternatives = append(r.Alternatives, old)
			} else if ok {
				// Second primary (another table): keep the first.
				continue
			}
			res[r.Prefix] = r
			continue
		}
		if old, ok := res[r.Prefix]; ok {
			old.Alternatives = append(old.Alternatives, r)
			res[r.Prefix] = old
		} else {
			res[r.Prefix] = r
		}
	}
	return res
}

// WaitRoute waits until prefix is in table (see Routes) and cond (nil:
// a primary route) accepts it.
func (b *BIRD) WaitRoute(t TB, table, prefix string, timeout time.Duration, cond func(BIRDRoute) bool) BIRDRoute {
	t.Helper()
	if cond == nil {
		cond = func(r BIRDRoute) bool { return r.Primary }
	}
	var got BIRDRoute
	WaitFor(t, timeout, 200*time.Millisecond, func() (bool, string) {
		rs, err := b.Routes(table)
		if err != nil {
			return false, err.Error()
		}
		r, ok := rs[prefix]
		if !ok {
			return false, fmt.Sprintf("BIRD %s: %s not in table %q (have %v)", b.ns.Name, prefix, table, sortedKeys(rs))
		}
		got = r
		return cond(r), fmt.Sprintf("BIRD %s: %s present but condition false: %+v", b.ns.Name, prefix, r)
	})
	return got
}

// Stop stops bird (SIGTERM, then SIGKILL).
func (b *BIRD) Stop() error { return b.Proc.Stop() }
