package netlab

import (
	"bufio"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Namespace is a network namespace created by a Lab.
type Namespace struct {
	lab *Lab
	// Name is the full namespace name ("kbgp-<pid>-<seq>-<short>"), as
	// used by "ip netns exec".
	Name string
	// Short is the name given to Lab.Namespace.
	Short string
}

// Lab returns the lab the namespace belongs to.
func (ns *Namespace) Lab() *Lab { return ns.lab }

// String returns the namespace name.
func (ns *Namespace) String() string { return ns.Name }

// Path is the namespace's file, for nsenter --net and setns.
func (ns *Namespace) Path() string { return "/var/run/netns/" + ns.Name }

// Exec runs a short-lived command inside the namespace ("ip netns exec
// NAME args...") with DefaultCommandTimeout and returns its combined output.
func (ns *Namespace) Exec(args ...string) (string, error) {
	return ns.ExecTimeout(DefaultCommandTimeout, args...)
}

// ExecTimeout is Exec with an explicit timeout.
func (ns *Namespace) ExecTimeout(timeout time.Duration, args ...string) (string, error) {
	if len(args) == 0 {
		return "", fmt.Errorf("netlab: Exec: no command")
	}
	full := append([]string{"netns", "exec", ns.Name}, args...)
	out, err := runCmd(timeout, "ip", full...)
	if err != nil {
		return out, fmt.Errorf("%s: %q: %w", ns.Name, strings.Join(args, " "), err)
	}
	return out, nil
}

// MustExec is Exec failing the test on error.
func (ns *Namespace) MustExec(args ...string) string {
	ns.lab.t.Helper()
	out, err := ns.Exec(args...)
	if err != nil {
		ns.lab.t.Fatalf("netlab: %v: %s", err, out)
	}
	return out
}

// IP runs "ip -n NAME args..." and returns its combined output.
func (ns *Namespace) IP(args ...string) (string, error) {
	out, err := runCmd(DefaultCommandTimeout, "ip", append([]string{"-n", ns.Name}, args...)...)
	if err != nil {
		return out, fmt.Errorf("ip -n %s %s: %w", ns.Name, strings.Join(args, " "), err)
	}
	return out, nil
}

func (ns *Namespace) mustIP(args ...string) string {
	ns.lab.t.Helper()
	out, err := ns.IP(args...)
	if err != nil {
		ns.lab.t.Fatalf("netlab: %v: %s", err, strings.TrimSpace(out))
	}
	return out
}

// AddAddr adds an address (CIDR) to interface ifname; IPv6 addresses are
// added with nodad so that they are usable at once.
func (ns *Namespace) AddAddr(ifname, cidr string) {
	ns.lab.t.Helper()
	if err := checkCIDR(cidr); err != nil {
		ns.lab.t.Fatalf("netlab: AddAddr: %v", err)
	}
	p := netip.MustParsePrefix(cidr)
	args := []string{"addr", "add", cidr, "dev", ifname}
	if p.Addr().Is6() && !p.Addr().Is4In6() {
		args = append(args, "nodad")
	}
	ns.mustIP(args...)
}

// DelAddr removes an address (CIDR) from interface ifname.
func (ns *Namespace) DelAddr(ifname, cidr string) {
	ns.lab.t.Helper()
	ns.mustIP("addr", "del", cidr, "dev", ifname)
}

// AddRoute adds a route to dst (a CIDR, or "default"/"default6") via the
// gateway address via.
func (ns *Namespace) AddRoute(dst, via string) {
	ns.lab.t.Helper()
	gw, err := netip.ParseAddr(via)
	if err != nil {
		ns.lab.t.Fatalf("netlab: AddRoute: gateway %q: %v", via, err)
	}
	if err := checkAddr(gw, via); err != nil {
		ns.lab.t.Fatalf("netlab: AddRoute: %v", err)
	}
	fam := "-4"
	if gw.Is6() && !gw.Is4In6() {
		fam = "-6"
	}
	switch dst {
	case "default", "default6":
		dst = "default"
	default:
		if err := checkCIDR(dst); err != nil {
			ns.lab.t.Fatalf("netlab: AddRoute: %v", err)
		}
	}
	out, err := runCmd(DefaultCommandTimeout, "ip", fam, "-n", ns.Name, "route", "add", dst, "via", via)
	if err != nil {
		ns.lab.t.Fatalf("netlab: %s: ip route add %s via %s: %v: %s", ns.Name, dst, via, err, out)
	}
}

// DelRoute deletes a route to dst (CIDR).
func (ns *Namespace) DelRoute(dst string) {
	ns.lab.t.Helper()
	ns.mustIP("route", "del", dst)
}

// SetForwarding enables or disables IPv4 and IPv6 forwarding in the
// namespace (for a middle "router" namespace in multihop topologies).
func (ns *Namespace) SetForwarding(on bool) {
	ns.lab.t.Helper()
	v := "0"
	if on {
		v = "1"
	}
	for _, k := range []string{"net.ipv4.ip_forward", "net.ipv6.conf.all.forwarding"} {
		if out, err := ns.Exec("sysctl", "-q", "-w", k+"="+v); err != nil {
			ns.lab.t.Fatalf("netlab: %v: %s", err, out)
		}
	}
}

// SetLinkUp sets interface ifname up or down (e.g. to cut a link).
func (ns *Namespace) SetLinkUp(ifname string, up bool) {
	ns.lab.t.Helper()
	state := "down"
	if up {
		state = "up"
	}
	ns.mustIP("link", "set", ifname, state)
}

// TCPListening reports whether some socket in the namespace listens on TCP
// port (IPv4 or IPv6, any address). It reads /proc/net/tcp{,6} from inside
// the namespace, so it needs no extra tools.
func (ns *Namespace) TCPListening(port int) (bool, error) {
	out, err := ns.Exec("cat", "/proc/net/tcp", "/proc/net/tcp6")
	if err != nil {
		return false, err
	}
	return procNetListening(out, port), nil
}

// WaitTCPListening waits until something listens on TCP port inside the
// namespace.
func (ns *Namespace) WaitTCPListening(port int, timeout time.Duration) {
	ns.lab.t.Helper()
	WaitFor(ns.lab.t, timeout, 50*time.Millisecond, func() (bool, string) {
		ok, err := ns.TCPListening(port)
		if err != nil {
			return false, err.Error()
		}
		return ok, fmt.Sprintf("nothing listens on TCP port %d in %s", port, ns.Name)
	})
}

func procNetListening(procNet string, port int) bool {
	sc := bufio.NewScanner(strings.NewReader(procNet))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		// sl local_address rem_address st ...
		if len(f) < 4 || f[3] != "0A" {
			continue
		}
		i := strings.LastIndexByte(f[1], ':')
		if i < 0 {
			continue
		}
		p, err := strconv.ParseUint(f[1][i+1:], 16, 16)
		if err == nil && int(p) == port {
			return true
		}
	}
	return false
}

// subdir creates (once) and returns a per-namespace working directory
// <lab dir>/<short>-<what>, mode 0755.
func (ns *Namespace) subdir(what string) string {
	ns.lab.t.Helper()
	d := filepath.Join(ns.lab.dir, fmt.Sprintf("%s-%s", ns.Short, what))
	if err := os.MkdirAll(d, 0o755); err != nil {
		ns.lab.t.Fatalf("netlab: %v", err)
	}
	if err := os.Chmod(d, 0o755); err != nil {
		ns.lab.t.Fatalf("netlab: %v", err)
	}
	return d
}
