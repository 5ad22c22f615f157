package netlab

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"kbgp.io/kbgp/internal/frr"
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
	// Zebra runs FRR's zebra beside bgpd (its socket in the namespace's own
	// directory), so the best routes are installed in the namespace's kernel and
	// traffic can be sent along them. Without it bgpd runs alone (-Z).
	Zebra bool
	// BFD runs FRR's bfdd beside bgpd (it needs Zebra), so that "neighbor X bfd" in
	// RawConfig sets up a BFD session for the neighbor.
	BFD bool
	// BFDConfig is the body of bfdd's configuration file (only with BFD), e.g. a "bfd"
	// block with a profile that "neighbor X bfd profile NAME" names:
	//   bfd
	//    profile fast
	//     receive-interval 300
	//    exit
	//   exit
	BFDConfig string
}

// FRR is a running FRR bgpd inside a namespace, with zebra when asked (FRRConfig.Zebra).
type FRR struct {
	// VTY runs vtysh commands and reads neighbors and tables (internal/frr, the driver
	// the lab uses too).
	frr.VTY
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
// routes are not installed in the kernel) unless cfg.Zebra, as user frr, and waits until
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
		VTY:      frr.VTY{Dir: vtyDir, Timeout: DefaultCommandTimeout},
		vtyDir:   vtyDir,
		confPath: filepath.Join(dir, "bgpd.conf"),
		logPath:  filepath.Join(vtyDir, "bgpd.log"),
	}
	if err := os.WriteFile(f.confPath, []byte(f.renderConfig()), 0o644); err != nil {
		t.Fatalf("netlab: %v", err)
	}
	args := []string{FRRBgpd, "-f", f.confPath, "-i", filepath.Join(vtyDir, "bgpd.pid"),
		"--vty_socket", vtyDir, "-u", "frr", "-g", "frr"}
	if cfg.BFD && !cfg.Zebra {
		t.Fatalf("netlab: StartFRR: BFD needs Zebra")
	}
	if cfg.Zebra {
		zsock := filepath.Join(vtyDir, "zserv.api")
		f.startZebra(zsock)
		if cfg.BFD {
			f.startBFDD(zsock)
		}
		args = append(args, "-z", zsock)
	} else {
		args = append(args, "-Z")
	}
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
		out, err := f.Command("show bgp summary json")
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

// MustConfigure is Configure failing the test on error.
func (f *FRR) MustConfigure(lines ...string) {
	f.ns.lab.t.Helper()
	if err := f.Configure(lines...); err != nil {
		f.ns.lab.t.Fatalf("netlab: FRR %s: %v", f.ns.Name, err)
	}
}

func (f *FRR) diagnostics() string {
	var b strings.Builder
	for _, c := range []string{"show bgp summary", "show bgp neighbors", "show bgp ipv4 unicast", "show bgp ipv6 unicast"} {
		out, err := f.Command(c)
		fmt.Fprintf(&b, "# %s\n%s", c, out)
		if err != nil {
			fmt.Fprintf(&b, "(error: %v)\n", err)
		}
	}
	return b.String()
}

// WaitNeighborState waits until neighbor addr is in state (FRR's names:
// "Idle", "Connect", "Active", "OpenSent", "OpenConfirm", "Established").
func (f *FRR) WaitNeighborState(t TB, addr, state string, timeout time.Duration) frr.Neighbor {
	t.Helper()
	var last frr.Neighbor
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

// WaitRoute waits until prefix is in the afi table and cond accepts it. A
// nil cond waits for a valid best path (FRR selects best paths
// asynchronously, so a freshly received path may briefly be in the table
// without being best).
func (f *FRR) WaitRoute(t TB, afi, prefix string, timeout time.Duration, cond func(frr.Route) bool) frr.Route {
	t.Helper()
	var got frr.Route
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
			cond = func(r frr.Route) bool { return r.Valid && r.Best }
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

// startZebra starts zebra in f's namespace with its API socket at zsock and waits
// until the socket exists, so bgpd connects at once.
func (f *FRR) startZebra(zsock string) {
	t := f.ns.lab.t
	t.Helper()
	conf := filepath.Join(f.dir, "zebra.conf")
	if err := os.WriteFile(conf, []byte("hostname "+f.ns.Short+"-zebra\nlog file "+filepath.Join(f.vtyDir, "zebra.log")+"\n"), 0o644); err != nil {
		t.Fatalf("netlab: %v", err)
	}
	zebra := f.ns.Start("zebra", filepath.Join(filepath.Dir(FRRBgpd), "zebra"), "-f", conf, "-i", filepath.Join(f.vtyDir, "zebra.pid"),
		"--vty_socket", f.vtyDir, "-z", zsock, "-u", "frr", "-g", "frr")
	WaitFor(t, 20*time.Second, 100*time.Millisecond, func() (bool, string) {
		if zebra.Exited() {
			t.Fatalf("netlab: zebra in %s exited during startup (%v):\n%s", f.ns.Name, zebra.Err(), zebra.Log())
		}
		_, err := os.Stat(zsock)
		return err == nil, fmt.Sprintf("zebra socket %s: %v", zsock, err)
	})
}

// startBFDD starts bfdd in f's namespace, connected to zebra's API socket zsock, and
// waits until its vty socket exists, so bgpd finds it when it registers its BFD
// sessions and vtysh reaches it. Like bgpd and zebra it is stopped on teardown.
func (f *FRR) startBFDD(zsock string) {
	t := f.ns.lab.t
	t.Helper()
	conf := filepath.Join(f.dir, "bfdd.conf")
	body := "hostname " + f.ns.Short + "-bfdd\nlog file " + filepath.Join(f.vtyDir, "bfdd.log") + " debugging\nlog timestamp precision 3\n!\n"
	if f.cfg.BFDConfig != "" {
		body += strings.TrimRight(f.cfg.BFDConfig, "\n") + "\n!\n"
	}
	if err := os.WriteFile(conf, []byte(body), 0o644); err != nil {
		t.Fatalf("netlab: %v", err)
	}
	bfdd := f.ns.Start("bfdd", filepath.Join(filepath.Dir(FRRBgpd), "bfdd"), "-f", conf, "-i", filepath.Join(f.vtyDir, "bfdd.pid"),
		"--vty_socket", f.vtyDir, "-z", zsock, "-u", "frr", "-g", "frr")
	vty := filepath.Join(f.vtyDir, "bfdd.vty")
	WaitFor(t, 20*time.Second, 100*time.Millisecond, func() (bool, string) {
		if bfdd.Exited() {
			t.Fatalf("netlab: bfdd in %s exited during startup (%v):\n%s", f.ns.Name, bfdd.Err(), bfdd.Log())
		}
		_, err := os.Stat(vty)
		return err == nil, fmt.Sprintf("bfdd vty socket %s: %v", vty, err)
	})
	f.ns.lab.AddDiagnostic(f.ns.Name+" FRR bfdd", func() string {
		out, err := f.Command("show bfd peers")
		if err != nil {
			out += fmt.Sprintf("(error: %v)\n", err)
		}
		return "# show bfd peers\n" + out
	})
}

// BFDPeer is one session of "show bfd peers json" (FRR 8.4 key names in the struct
// tags; intervals in milliseconds).
type BFDPeer struct {
	Peer      string `json:"peer"`
	Local     string `json:"local"`
	Interface string `json:"interface"`
	Multihop  bool   `json:"multihop"`
	// Status is "up", "down", "init" or "shutdown".
	Status                 string `json:"status"`
	Diagnostic             string `json:"diagnostic"`
	RemoteDiagnostic       string `json:"remote-diagnostic"`
	ReceiveInterval        int    `json:"receive-interval"`
	TransmitInterval       int    `json:"transmit-interval"`
	DetectMultiplier       int    `json:"detect-multiplier"`
	RemoteReceiveInterval  int    `json:"remote-receive-interval"`
	RemoteTransmitInterval int    `json:"remote-transmit-interval"`
	RemoteDetectMultiplier int    `json:"remote-detect-multiplier"`
}

// BFDPeer returns bfdd's session with peer addr (FRRConfig.BFD).
func (f *FRR) BFDPeer(addr string) (BFDPeer, error) {
	var peers []BFDPeer
	if err := f.JSON("show bfd peers json", &peers); err != nil {
		return BFDPeer{}, err
	}
	for _, p := range peers {
		if p.Peer == addr {
			return p, nil
		}
	}
	return BFDPeer{}, fmt.Errorf("FRR %s: no BFD peer %s (have %d)", f.ns.Name, addr, len(peers))
}
