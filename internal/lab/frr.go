package lab

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/intent"
)

// frrBgpd is where Debian's frr package installs bgpd.
const frrBgpd = "/usr/lib/frr/bgpd"

// frrRouter is FRR's bgpd as the lab's upstream router: a process on the loopback
// without zebra (-Z: nothing is installed in the kernel), read through vtysh's JSON.
type frrRouter struct {
	cmd    *exec.Cmd
	vtyDir string
	done   chan struct{}
}

// startFRR starts bgpd listening on addr:port with a passive neighbor per node. bgpd
// drops privileges to the frr user, so this needs root.
func startFRR(port uint16) (*frrRouter, error) {
	if _, err := os.Stat(frrBgpd); err != nil {
		return nil, fmt.Errorf("--router=frr: FRR is not installed (%s): apt-get install frr", frrBgpd)
	}
	if os.Geteuid() != 0 {
		return nil, errors.New("--router=frr needs root: bgpd switches to the frr user; the default --router=gobgp does not")
	}
	// bgpd runs as frr and writes its socket, pid and log here: a directory of its
	// own, since the lab directory (and its parents) may be private.
	vtyDir, err := os.MkdirTemp("", "kbgp-lab-frr-")
	if err != nil {
		return nil, err
	}
	if err := chownToFRR(vtyDir); err != nil {
		_ = os.RemoveAll(vtyDir)
		return nil, err
	}
	conf := filepath.Join(vtyDir, "bgpd.conf")
	if err := os.WriteFile(conf, []byte(frrConfig(filepath.Join(vtyDir, "bgpd.log"))), 0o644); err != nil {
		return nil, err
	}
	cmd := exec.Command(frrBgpd, "-Z", "-f", conf, "-i", filepath.Join(vtyDir, "bgpd.pid"), "--vty_socket", vtyDir,
		"-u", "frr", "-g", "frr", "-l", upstreamAddr.String(), "-p", strconv.Itoa(int(port)))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		_ = os.RemoveAll(vtyDir)
		return nil, fmt.Errorf("start bgpd: %w", err)
	}
	f := &frrRouter{cmd: cmd, vtyDir: vtyDir, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(f.done) }()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if _, err := f.vtysh("show bgp summary json"); err == nil {
			return f, nil
		} else if time.Now().After(deadline) {
			f.Stop()
			return nil, fmt.Errorf("bgpd did not answer vtysh: %w", err)
		}
	}
}

// frrConfig is the router's configuration: every lab node as an eBGP neighbor for
// both families, fast reconnects, no policy required for eBGP.
func frrConfig(logFile string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "log file %s informational\n!\nrouter bgp %d\n bgp router-id %s\n", logFile, upstreamASN, upstreamRouterID)
	// The agents' next hops are their 127.0.1.N source addresses, which FRR
	// otherwise rejects as martian (and resets the session).
	b.WriteString(" no bgp ebgp-requires-policy\n no bgp default ipv4-unicast\n bgp allow-martian-nexthop\n")
	for _, n := range nodes {
		fmt.Fprintf(&b, " neighbor %s remote-as %d\n neighbor %s passive\n", n.source, clusterASN, n.source)
	}
	for _, afi := range []string{"ipv4", "ipv6"} {
		fmt.Fprintf(&b, " address-family %s unicast\n", afi)
		for _, n := range nodes {
			fmt.Fprintf(&b, "  neighbor %s activate\n", n.source)
		}
		b.WriteString(" exit-address-family\n")
	}
	b.WriteString("exit\n")
	return b.String()
}

func chownToFRR(path string) error {
	u, err := user.Lookup("frr")
	if err != nil {
		return fmt.Errorf("--router=frr: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return os.Chown(path, uid, gid)
}

// Stop ends bgpd (by its PID: SIGTERM, SIGKILL after 5 s), waits for it and removes
// its directory.
func (f *frrRouter) Stop() {
	_ = f.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-f.done:
	case <-time.After(5 * time.Second):
		_ = f.cmd.Process.Kill()
		<-f.done
	}
	_ = os.RemoveAll(f.vtyDir)
}

func (f *frrRouter) vtysh(command string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "vtysh", "--vty_socket", f.vtyDir, "-c", command).Output()
	if err != nil {
		return nil, fmt.Errorf("vtysh %q: %w", command, err)
	}
	return out, nil
}

// Sessions returns the state of every neighbor, in FRR's names (which are BGP's).
func (f *frrRouter) Sessions(context.Context) (map[netip.Addr]bgp.SessionState, error) {
	out, err := f.vtysh("show bgp neighbors json")
	if err != nil {
		return nil, err
	}
	var neighbors map[string]struct {
		State string `json:"bgpState"`
	}
	if err := json.Unmarshal(out, &neighbors); err != nil {
		return nil, fmt.Errorf("decode FRR neighbors: %w", err)
	}
	sessions := map[netip.Addr]bgp.SessionState{}
	for addr, n := range neighbors {
		if a, err := netip.ParseAddr(addr); err == nil {
			sessions[a] = bgp.SessionState(n.State)
		}
	}
	return sessions, nil
}

// frrPath is what the lab reads of one path in "show bgp AFI unicast json detail"
// (FRR 8.4 lists communities only in the detail form).
type frrPath struct {
	Peer struct {
		ID string `json:"peerId"`
	} `json:"peer"`
	ASPath struct {
		Segments []struct {
			List []uint32 `json:"list"`
		} `json:"segments"`
	} `json:"aspath"`
	Community struct {
		List []string `json:"list"`
	} `json:"community"`
	LargeCommunity struct {
		List []string `json:"list"`
	} `json:"largeCommunity"`
	Nexthops []struct {
		IP string `json:"ip"`
	} `json:"nexthops"`
}

// Received returns every path of both families, one per neighbor and prefix.
func (f *frrRouter) Received(context.Context) ([]bgp.ReceivedRoute, error) {
	var out []bgp.ReceivedRoute
	for _, afi := range []string{"ipv4", "ipv6"} {
		raw, err := f.vtysh("show bgp " + afi + " unicast json detail")
		if err != nil {
			return nil, err
		}
		var table struct {
			Routes map[string][]json.RawMessage `json:"routes"`
		}
		if err := json.Unmarshal(raw, &table); err != nil {
			return nil, fmt.Errorf("decode FRR %s table: %w", afi, err)
		}
		for prefix, elems := range table.Routes {
			p, err := netip.ParsePrefix(prefix)
			if err != nil {
				continue
			}
			for _, e := range elems {
				if r, ok := decodeFRRPath(p, e); ok {
					out = append(out, r)
				}
			}
		}
	}
	sortRoutes(out)
	return out, nil
}

// decodeFRRPath reads one element of a prefix's array; the header element (prefix
// and version, no peer) is not a path.
func decodeFRRPath(prefix netip.Prefix, raw json.RawMessage) (bgp.ReceivedRoute, bool) {
	var p frrPath
	if json.Unmarshal(raw, &p) != nil {
		return bgp.ReceivedRoute{}, false
	}
	neighbor, err := netip.ParseAddr(p.Peer.ID)
	if err != nil {
		return bgp.ReceivedRoute{}, false
	}
	r := bgp.ReceivedRoute{Neighbor: neighbor, Prefix: prefix}
	if len(p.Nexthops) > 0 {
		r.NextHop, _ = netip.ParseAddr(p.Nexthops[0].IP)
	}
	for _, s := range p.ASPath.Segments {
		r.ASPath = append(r.ASPath, s.List...)
	}
	for _, c := range p.Community.List {
		if v, err := intent.ParseStandardCommunity(c); err == nil {
			r.Attributes.Communities = append(r.Attributes.Communities, v)
		}
	}
	for _, c := range p.LargeCommunity.List {
		if v, err := intent.ParseLargeCommunity(c); err == nil {
			r.Attributes.LargeCommunities = append(r.Attributes.LargeCommunities, v)
		}
	}
	return r, true
}
