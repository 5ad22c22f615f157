package netlab

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// FRRBgpd is the path of FRR's bgpd binary.
var FRRBgpd = "/usr/lib/frr/bgpd"

// FRRConfig configures StartFRR.
type FRRConfig struct {
	// ASN is the local AS number ("router bgp ASN").
	ASN uint32
	// RouterID is the BGP router ID ("bgp router-id").
	RouterID string
	// ListenAddrs are the addresses bgpd listens on (one -l flag each).
	// Empty means all addresses.
	ListenAddrs []string
	// Port is the BGP listen port; 0 means 179.
	Port int
	// RawConfig is the body of the "router bgp" block (neighbor lines,
	// address-family blocks, ...), written after the harness defaults:
	//   bgp router-id ROUTERID
	//   no bgp ebgp-requires-policy
	//   no bgp network import-check
	//   no bgp default ipv4-unicast   (only if NoDefaultIPv4Unicast)
	//
	// Practical notes for FRR 8.4 without zebra:
	//   - the default connect-retry timer is 120 s: add
	//     "neighbor X timers connect 1" so that a session comes up quickly
	//     when the peer starts after bgpd;
	//   - FRR knows no interfaces, so an IPv6 UPDATE carrying a link-local
	//     next hop (32-byte MP_REACH next hop, as sent by directly connected
	//     BIRD/others) is treated as malformed: FRR sends NOTIFICATION 3/10
	//     (UPDATE Message Error/Invalid Network Field) and resets the
	//     session. Peers must send a global next hop only (BIRD: "multihop").
	RawConfig string
	// ExtraConfig is written after the "router bgp" block (route-maps,
	// prefix-lists, bgp community-lists, ...).
	ExtraConfig string
	// NoDefaultIPv4Unicast adds "no bgp default ipv4-unicast", so that
	// every address family must be activated explicitly.
	NoDefaultIPv4Unicast bool
}

// FRR is a running FRR bgpd (without zebra) inside a namespace.
type FRR struct {
	ns       *Namespace
	cfg      FRRConfig
	dir      string
	vtyDir   string
	confPath string
	logPath  string
	// Proc is the bgpd process.
	Proc *Process
}

// StartFRR writes bgpd.conf and starts FRR's bgpd in ns, without zebra (-Z:
// routes are not installed in the kernel), as user frr, and waits until
// vtysh answers. The harness writes the header (hostname, log file,
// neighbor-event debugging) and the "router bgp ASN" line with the defaults
// listed at FRRConfig.RawConfig.
func StartFRR(ns *Namespace, cfg FRRConfig) *FRR {
	t := ns.lab.t
	t.Helper()
	if cfg.ASN == 0 {
		t.Fatalf("netlab: StartFRR: ASN is required")
	}
	for _, a := range append([]string{cfg.RouterID}, cfg.ListenAddrs...) {
		if a == "" {
			continue
		}
		if err := checkAddrString(a); err != nil {
			t.Fatalf("netlab: StartFRR: %v", err)
		}
	}
	if _, err := os.Stat(FRRBgpd); err != nil {
		t.Fatalf("netlab: StartFRR: FRR bgpd not found: %v", err)
	}
	if _, err := exec.LookPath("vtysh"); err != nil {
		t.Fatalf("netlab: StartFRR: vtysh not found: %v", err)
	}
	dir := ns.subdir("frr")
	vtyDir := filepath.Join(dir, "vty")
	if err := os.MkdirAll(vtyDir, 0o755); err != nil {
		t.Fatalf("netlab: %v", err)
	}
	if err := chownToUser(vtyDir, "frr"); err != nil {
		t.Fatalf("netlab: StartFRR: %v", err)
	}
	f := &FRR{
		ns:       ns,
		cfg:      cfg,
		dir:      dir,
		vtyDir:   vtyDir,
		confPath: filepath.Join(dir, "bgpd.conf"),
		logPath:  filepath.Join(vtyDir, "bgpd.log"),
	}
	if err := os.WriteFile(f.confPath, []byte(f.renderConfig()), 0o644); err != nil {
		t.Fatalf("netlab: %v", err)
	}
	args := []string{FRRBgpd, "-Z", "-f", f.confPath, "-i", filepath.Join(vtyDir, "bgpd.pid"),
		"--vty_socket", vtyDir, "-u", "frr", "-g", "frr"}
	if cfg.Port != 0 {
		args = append(args, "-p", strconv.Itoa(cfg.Port))
	}
	for _, a := range cfg.ListenAddrs {
		args = append(args, "-l", a)
	}
	f.Proc = ns.Start("bgpd", args...)
	ns.lab.AddDiagnostic(ns.Name+" FRR", f.diagnostics)
	WaitFor(t, 20*time.Second, 100*time.Millisecond, func() (bool, string) {
		if f.Proc.Exited() {
			t.Fatalf("netlab: bgpd in %s exited during startup (%v):\n%s\nbgpd.log:\n%s",
				ns.Name, f.Proc.Err(), f.Proc.Log(), tailFile(f.logPath, 40))
		}
		out, err := f.Vtysh("show bgp summary json")
		if err != nil {
			return false, fmt.Sprintf("vtysh: %v: %s", err, out)
		}
		return strings.Contains(out, "{"), "vtysh output: " + out
	})
	return f
}

func (f *FRR) renderConfig() string {
	var b strings.Builder
	fmt.Fprintf(&b, "hostname %s\n", f.ns.Short)
	fmt.Fprintf(&b, "log file %s debugging\n", f.logPath)
	b.WriteString("log timestamp precision 3\n")
	b.WriteString("debug bgp neighbor-events\n")
	b.WriteString("!\n")
	fmt.Fprintf(&b, "router bgp %d\n", f.cfg.ASN)
	if f.cfg.RouterID != "" {
		fmt.Fprintf(&b, " bgp router-id %s\n", f.cfg.RouterID)
	}
	b.WriteString(" no bgp ebgp-requires-policy\n")
	b.WriteString(" no bgp network import-check\n")
	if f.cfg.NoDefaultIPv4Unicast {
		b.WriteString(" no bgp default ipv4-unicast\n")
	}
	for _, line := range strings.Split(strings.TrimRight(f.cfg.RawConfig, "\n"), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		if !strings.HasPrefix(line, " ") {
			line = " " + line
		}
		b.WriteString(line + "\n")
	}
	b.WriteString("exit\n!\n")
	if f.cfg.ExtraConfig != "" {
		b.WriteString(strings.TrimRight(f.cfg.ExtraConfig, "\n") + "\n!\n")
	}
	return b.String()
}

func checkAddrString(s string) error {
	if strings.Contains(s, "/") {
		return checkCIDR(s)
	}
	return checkCIDR(s + hostBits(s))
}

func hostBits(s string) string {
	if strings.Contains(s, ":") {
		return "/128"
	}
	return "/32"
}

func chownToUser(path, name string) error {
	u, err := user.Lookup(name)
	if err != nil {
		return fmt.Errorf("looking up user %s: %v", name, err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return os.Chown(path, uid, gid)
}

// Namespace returns the namespace bgpd runs in.
func (f *FRR) Namespace() *Namespace { return f.ns }

// ConfigPath returns the path of the generated bgpd.conf.
func (f *FRR) ConfigPath() string { return f.confPath }

// LogPath returns the path of bgpd's log file.
func (f *FRR) LogPath() string { return f.logPath }

// Log returns the content of bgpd's log file.
func (f *FRR) Log() string {
	b, err := os.ReadFile(f.logPath)
	if err != nil {
		return fmt.Sprintf("(reading %s: %v)", f.logPath, err)
	}
	return string(b)
}

// Vtysh runs one vtysh command against this bgpd and returns its output. A
// "% ..." error reply from vtysh is returned as an error too.
func (f *FRR) Vtysh(cmd string) (string, error) {
	return f.vtysh("-c", cmd)
}

func (f *FRR) vtysh(args ...string) (string, error) {
	full := append([]string{"--vty_socket", f.vtyDir}, args...)
	out, err := runCmd(DefaultCommandTimeout, "vtysh", full...)
	if err != nil {
		return out, fmt.Errorf("vtysh %q: %w", strings.Join(args, " "), err)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "% ") {
			return out, fmt.Errorf("vtysh %q: %s", strings.Join(args, " "), strings.TrimSpace(line))
		}
	}
	return out, nil
}

// VtyshJSON runs a vtysh command (which should end in "json") and decodes
// its output into v.
func (f *FRR) VtyshJSON(cmd string, v any) error {
	out, err := f.Vtysh(cmd)
	if err != nil {
		return err
	}
	if err := json.Unmarshal([]byte(out), v); err != nil {
		return fmt.Errorf("vtysh %q: decoding JSON: %v: %s", cmd, err, truncate(out, 2000))
	}
	return nil
}

// Configure applies configuration lines in "configure terminal" mode, e.g.
// Configure("router bgp 65010", "neighbor 10.0.0.2 shutdown").
func (f *FRR) Configure(lines ...string) error {
	args := []string{"-c", "configure terminal"}
	for _, l := range lines {
		args = append(args, "-c", l)
	}
	out, err := f.vtysh(args...)
	if err != nil {
		return fmt.Errorf("%v: %s", err, strings.TrimSpace(out))
	}
	return nil
}

// MustConfigure is Configure failing the test on error.
func (f *FRR) MustConfigure(lines ...string) {
	f.ns.lab.t.Helper()
	if err := f.Configure(lines...); err != nil {
		f.ns.lab.t.Fatalf("netlab: FRR %s: %v", f.ns.Name, err)
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "...(truncated)"
}

func (f *FRR) diagnostics() string {
	var b strings.Builder
	for _, c := range []string{"show bgp summary", "show bgp neighbors", "show bgp ipv4 unicast", "show bgp ipv6 unicast"} {
		out, err := f.Vtysh(c)
		fmt.Fprintf(&b, "# %s\n%s", c, out)
		if err != nil {
			fmt.Fprintf(&b, "(error: %v)\n", err)
		}
	}
	return b.String()
}

// FRRMessageStats is "messageStats" of "show bgp neighbors json".
type FRRMessageStats struct {
	DepthInq          int `json:"depthInq"`
	DepthOutq         int `json:"depthOutq"`
	OpensSent         int `json:"opensSent"`
	OpensRecv         int `json:"opensRecv"`
	NotificationsSent int `json:"notificationsSent"`
	NotificationsRecv int `json:"notificationsRecv"`
	UpdatesSent       int `json:"updatesSent"`
	UpdatesRecv       int `json:"updatesRecv"`
	KeepalivesSent    int `json:"keepalivesSent"`
	KeepalivesRecv    int `json:"keepalivesRecv"`
	RouteRefreshSent  int `json:"routeRefreshSent"`
	RouteRefreshRecv  int `json:"routeRefreshRecv"`
	TotalSent         int `json:"totalSent"`
	TotalRecv         int `json:"totalRecv"`
}

// FRRCapabilities is (part of) "neighborCapabilities". Values are FRR's
// strings such as "advertisedAndReceived", "advertised", "received".
type FRRCapabilities struct {
	FourByteAS                 string                     `json:"4byteAs"`
	RouteRefresh               string                     `json:"routeRefresh"`
	EnhancedRouteRefresh       string                     `json:"enhancedRouteRefresh"`
	ExtendedMessage            string                     `json:"extendedMessage"`
	GracefulRestart            string                     `json:"gracefulRestart"`
	GracefulRestartRemoteMsecs int                        `json:"gracefulRestartRemoteTimerMsecs"`
	LongLivedGracefulRestart   string                     `json:"longLivedGracefulRestart"`
	ExtendedNexthop            string                     `json:"extendedNexthop"`
	MultiprotocolExtensions    map[string]map[string]bool `json:"multiprotocolExtensions"`
}

// FRRGracefulRestartInfo is "gracefulRestartInfo" of "show bgp neighbors
// json".
type FRRGracefulRestartInfo struct {
	EndOfRibSend map[string]bool `json:"endOfRibSend"`
	EndOfRibRecv map[string]bool `json:"endOfRibRecv"`
	LocalGrMode  string          `json:"localGrMode"`
	RemoteGrMode string          `json:"remoteGrMode"`
	RBit         bool            `json:"rBit"`
	NBit         bool            `json:"nBit"`
	Timers       struct {
		ConfiguredRestartTimer int `json:"configuredRestartTimer"`
		ReceivedRestartTimer   int `json:"receivedRestartTimer"`
	} `json:"timers"`
}

// FRRAddressFamilyInfo is one entry of "addressFamilyInfo".
type FRRAddressFamilyInfo struct {
	AcceptedPrefixCounter int `json:"acceptedPrefixCounter"`
	SentPrefixCounter     int `json:"sentPrefixCounter"`
}

// FRRNeighbor is one neighbor of "show bgp neighbors ADDR json" (FRR 8.4
// key names in the struct tags).
type FRRNeighbor struct {
	// Address is the neighbor address (the JSON object key).
	Address        string `json:"-"`
	RemoteAS       uint32 `json:"remoteAs"`
	LocalAS        uint32 `json:"localAs"`
	State          string `json:"bgpState"`
	RemoteRouterID string `json:"remoteRouterId"`
	LocalRouterID  string `json:"localRouterId"`
	// UpMsec is the time since the session came up (only when
	// Established).
	UpMsec int64 `json:"bgpTimerUpMsec"`
	// HoldTimeMsecs and KeepaliveMsecs are the negotiated timers.
	HoldTimeMsecs            int `json:"bgpTimerHoldTimeMsecs"`
	KeepaliveMsecs           int `json:"bgpTimerKeepAliveIntervalMsecs"`
	ConfiguredHoldTimeMsecs  int `json:"bgpTimerConfiguredHoldTimeMsecs"`
	ConfiguredKeepaliveMsecs int `json:"bgpTimerConfiguredKeepAliveIntervalMsecs"`

	ConnectionsEstablished int `json:"connectionsEstablished"`
	ConnectionsDropped     int `json:"connectionsDropped"`
	// LastResetDueTo is FRR's text for the last reset, e.g. "BGP
	// Notification received" or "No AFI/SAFI activated for peer" (the
	// latter is what FRR 8.4 shows before the first reset).
	LastResetDueTo   string `json:"lastResetDueTo"`
	LastResetCode    int    `json:"lastResetCode"`
	LastResetTimerMs int64  `json:"lastResetTimerMsecs"`
	// LastNotificationReason is set after a NOTIFICATION was sent or
	// received, e.g. "Cease/Administrative Shutdown".
	LastNotificationReason string `json:"lastNotificationReason"`
	// LastErrorCodeSubcode is the hex code+subcode of the last
	// NOTIFICATION, e.g. "0602".
	LastErrorCodeSubcode string `json:"lastErrorCodeSubcode"`
	// LastShutdownDescription is the RFC 8203 shutdown message, if any.
	LastShutdownDescription string `json:"lastShutdownDescription"`

	MessageStats        FRRMessageStats                 `json:"messageStats"`
	Capabilities        FRRCapabilities                 `json:"neighborCapabilities"`
	GracefulRestartInfo *FRRGracefulRestartInfo         `json:"gracefulRestartInfo"`
	AddressFamilyInfo   map[string]FRRAddressFamilyInfo `json:"addressFamilyInfo"`

	HostLocal   string `json:"hostLocal"`
	PortLocal   int    `json:"portLocal"`
	HostForeign string `json:"hostForeign"`
	PortForeign int    `json:"portForeign"`

	// Raw is the neighbor's complete JSON object.
	Raw json.RawMessage `json:"-"`
}

// Neighbors returns all neighbors from "show bgp neighbors json", keyed by
// neighbor address.
func (f *FRR) Neighbors() (map[string]FRRNeighbor, error) {
	return f.neighbors("show bgp neighbors json")
}

// Neighbor returns one neighbor from "show bgp neighbors ADDR json".
func (f *FRR) Neighbor(addr string) (FRRNeighbor, error) {
	m, err := f.neighbors("show bgp neighbors " + addr + " json")
	if err != nil {
		return FRRNeighbor{}, err
	}
	for k, v := range m {
		if k == addr || len(m) == 1 {
			return v, nil
		}
	}
	return FRRNeighbor{}, fmt.Errorf("FRR %s: neighbor %s not in output", f.ns.Name, addr)
}

func (f *FRR) neighbors(cmd string) (map[string]FRRNeighbor, error) {
	var raw map[string]json.RawMessage
	if err := f.VtyshJSON(cmd, &raw); err != nil {
		return nil, err
	}
	if _, ok := raw["bgpNoSuchNeighbor"]; ok {
		return nil, fmt.Errorf("FRR %s: %s: no such neighbor", f.ns.Name, cmd)
	}
	m := make(map[string]FRRNeighbor, len(raw))
	for k, v := range raw {
		if len(v) == 0 || v[0] != '{' {
			continue
		}
		var n FRRNeighbor
		if err := json.Unmarshal(v, &n); err != nil {
			return nil, fmt.Errorf("FRR %s: decoding neighbor %s: %v", f.ns.Name, k, err)
		}
		n.Address = k
		n.Raw = v
		m[k] = n
	}
	return m, nil
}

// WaitNeighborState waits until neighbor addr is in state (FRR's names:
// "Idle", "Connect", "Active", "OpenSent", "OpenConfirm", "Established").
func (f *FRR) WaitNeighborState(t testing.TB, addr, state string, timeout time.Duration) FRRNeighbor {
	t.Helper()
	var last FRRNeighbor
	WaitFor(t, timeout, 200*time.Millisecond, func() (bool, string) {
		n, err := f.Neighbor(addr)
		if err != nil {
			return false, err.Error()
		}
		last = n
		return n.State == state, fmt.Sprintf("FRR %s neighbor %s: state %q, want %q (last reset: %q, notification: %q)",
			f.ns.Name, addr, n.State, state, n.LastResetDueTo, n.LastNotificationReason)
	})
	return last
}

// FRRNexthop is one nexthop of a path.
type FRRNexthop struct {
	IP  string `json:"ip"`
	AFI string `json:"afi"`
	// Scope is "global" or "link-local" for IPv6 nexthops.
	Scope      string `json:"scope"`
	Accessible bool   `json:"accessible"`
	Used       bool   `json:"used"`
}

// FRRPath is one path of a prefix, from "show bgp AFI unicast json detail".
type FRRPath struct {
	Valid bool `json:"valid"`
	// Best is bestpath.overall.
	Best bool `json:"-"`
	// Stale is set for paths retained during a graceful restart.
	Stale  bool   `json:"stale"`
	Origin string `json:"origin"`
	// ASPath is aspath.string ("" for local routes).
	ASPath string `json:"-"`
	// LocalPref is locPrf; nil when the path has no LOCAL_PREF.
	LocalPref *uint32 `json:"locPrf"`
	// MED is "metric"; nil when absent.
	MED              *uint32      `json:"metric"`
	Weight           int          `json:"weight"`
	Communities      []string     `json:"-"`
	LargeCommunities []string     `json:"-"`
	ExtCommunities   string       `json:"-"`
	Nexthops         []FRRNexthop `json:"nexthops"`
	// PeerID is the address of the neighbor the path came from ("0.0.0.0"
	// or "::" for local routes); PeerRouterID its router ID.
	PeerID       string `json:"-"`
	PeerRouterID string `json:"-"`
}

type frrPathJSON struct {
	FRRPath
	Prefix   *string          `json:"prefix"`
	Bestpath *json.RawMessage `json:"bestpath"`
	ASPathJ  struct {
		String string `json:"string"`
	} `json:"aspath"`
	Community struct {
		List []string `json:"list"`
	} `json:"community"`
	LargeCommunity struct {
		List []string `json:"list"`
	} `json:"largeCommunity"`
	ExtendedCommunity struct {
		String string `json:"string"`
	} `json:"extendedCommunity"`
	Peer struct {
		PeerID   string `json:"peerId"`
		RouterID string `json:"routerId"`
	} `json:"peer"`
}

// FRRRoute is one prefix of the BGP table. The flattened fields describe the
// best path (or the first path when none is best); Paths holds all paths.
type FRRRoute struct {
	Prefix           string
	Nexthop          string
	Communities      []string
	LargeCommunities []string
	LocalPref        *uint32
	ASPath           string
	Stale            bool
	Valid            bool
	Best             bool
	Paths            []FRRPath
}

// String formats the route's flattened fields for test messages.
func (r FRRRoute) String() string {
	lp := "-"
	if r.LocalPref != nil {
		lp = strconv.FormatUint(uint64(*r.LocalPref), 10)
	}
	return fmt.Sprintf("%s via %s as-path %q local-pref %s communities %v large %v valid=%v best=%v stale=%v (%d paths)",
		r.Prefix, r.Nexthop, r.ASPath, lp, r.Communities, r.LargeCommunities, r.Valid, r.Best, r.Stale, len(r.Paths))
}

// HasCommunity reports whether the flattened path carries community c
// ("65000:1", "no-export", ...).
func (r FRRRoute) HasCommunity(c string) bool { return contains(r.Communities, c) }

// HasLargeCommunity reports whether the flattened path carries large
// community c ("65000:1:2").
func (r FRRRoute) HasLargeCommunity(c string) bool { return contains(r.LargeCommunities, c) }

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// Routes returns the BGP table of afi ("ipv4" or "ipv6") unicast, keyed by
// prefix, from "show bgp AFI unicast json detail" (FRR 8.4 needs the
// "detail" form for communities; its per-prefix array starts with a
// prefix header object that is skipped here).
func (f *FRR) Routes(afi string) (map[string]FRRRoute, error) {
	if afi != "ipv4" && afi != "ipv6" {
		return nil, fmt.Errorf("FRR Routes: afi must be ipv4 or ipv6, got %q", afi)
	}
	var table struct {
		Routes map[string][]json.RawMessage `json:"routes"`
	}
	if err := f.VtyshJSON("show bgp "+afi+" unicast json detail", &table); err != nil {
		return nil, err
	}
	out := make(map[string]FRRRoute, len(table.Routes))
	for prefix, elems := range table.Routes {
		r := FRRRoute{Prefix: prefix}
		for _, e := range elems {
			var pj frrPathJSON
			if err := json.Unmarshal(e, &pj); err != nil {
				return nil, fmt.Errorf("FRR %s: decoding path of %s: %v", f.ns.Name, prefix, err)
			}
			if pj.Prefix != nil && pj.Nexthops == nil && pj.Bestpath == nil {
				continue // prefix header {"prefix","version","advertisedTo"}
			}
			p := pj.FRRPath
			if pj.Bestpath != nil {
				var bp struct {
					Overall bool `json:"overall"`
				}
				if json.Unmarshal(*pj.Bestpath, &bp) == nil {
					p.Best = bp.Overall
				} else {
					var b bool
					if json.Unmarshal(*pj.Bestpath, &b) == nil {
						p.Best = b
					}
				}
			}
			p.ASPath = pj.ASPathJ.String
			p.Communities = pj.Community.List
			p.LargeCommunities = pj.LargeCommunity.List
			p.ExtCommunities = pj.ExtendedCommunity.String
			p.PeerID = pj.Peer.PeerID
			p.PeerRouterID = pj.Peer.RouterID
			r.Paths = append(r.Paths, p)
		}
		if len(r.Paths) == 0 {
			continue
		}
		best := r.Paths[0]
		for _, p := range r.Paths {
			if p.Best {
				best = p
				break
			}
		}
		r.Communities = best.Communities
		r.LargeCommunities = best.LargeCommunities
		r.LocalPref = best.LocalPref
		r.ASPath = best.ASPath
		r.Stale = best.Stale
		r.Valid = best.Valid
		r.Best = best.Best
		for _, nh := range best.Nexthops {
			if nh.Scope == "link-local" && len(best.Nexthops) > 1 {
				continue
			}
			r.Nexthop = nh.IP
			break
		}
		out[prefix] = r
	}
	return out, nil
}

// WaitRoute waits until prefix is in the afi table and cond accepts it. A
// nil cond waits for a valid best path (FRR selects best paths
// asynchronously, so a freshly received path may briefly be in the table
// without being best).
func (f *FRR) WaitRoute(t testing.TB, afi, prefix string, timeout time.Duration, cond func(FRRRoute) bool) FRRRoute {
	t.Helper()
	var got FRRRoute
	WaitFor(t, timeout, 200*time.Millisecond, func() (bool, string) {
		rs, err := f.Routes(afi)
		if err != nil {
			return false, err.Error()
		}
		r, ok := rs[prefix]
		if !ok {
			return false, fmt.Sprintf("FRR %s: %s not in %s table (have %v)", f.ns.Name, prefix, afi, sortedKeys(rs))
		}
		got = r
		if cond == nil {
			cond = func(r FRRRoute) bool { return r.Valid && r.Best }
		}
		if !cond(r) {
			return false, fmt.Sprintf("FRR %s: %s present but condition false: %v", f.ns.Name, prefix, r)
		}
		return true, ""
	})
	return got
}

// Stop stops bgpd (SIGTERM, then SIGKILL).
func (f *FRR) Stop() error { return f.Proc.Stop() }

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
