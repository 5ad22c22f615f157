package lab

import (
	"context"
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

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/frr"
)

// frrBgpd is where Debian's frr package installs bgpd.
const frrBgpd = "/usr/lib/frr/bgpd"

// frrRouter is FRR's bgpd as the lab's upstream router: a process on the loopback
// without zebra (-Z: nothing is installed in the kernel), read through vtysh's JSON.
type frrRouter struct {
	vty  frr.VTY
	cmd  *exec.Cmd
	done chan struct{}
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
	f := &frrRouter{cmd: cmd, vty: frr.VTY{Dir: vtyDir, Timeout: 10 * time.Second}, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(f.done) }()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if _, err := f.vty.Command("show bgp summary json"); err == nil {
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
	_ = os.RemoveAll(f.vty.Dir)
}

// Sessions returns the state of every neighbor, in FRR's names (which are BGP's).
func (f *frrRouter) Sessions(context.Context) (map[netip.Addr]bgp.SessionState, error) {
	neighbors, err := f.vty.Neighbors()
	if err != nil {
		return nil, err
	}
	sessions := map[netip.Addr]bgp.SessionState{}
	for addr, n := range neighbors {
		if a, err := netip.ParseAddr(addr); err == nil {
			sessions[a] = bgp.SessionState(n.State)
		}
	}
	return sessions, nil
}

// Received returns every path of both families, one per neighbor and prefix.
func (f *frrRouter) Received(context.Context) ([]bgp.ReceivedRoute, error) {
	var out []bgp.ReceivedRoute
	for _, afi := range []string{"ipv4", "ipv6"} {
		table, err := f.vty.Routes(afi)
		if err != nil {
			return nil, err
		}
		for prefix, route := range table {
			p, err := netip.ParsePrefix(prefix)
			if err != nil {
				continue
			}
			for _, path := range route.Paths {
				if r, ok := receivedRoute(p, path); ok {
					out = append(out, r)
				}
			}
		}
	}
	sortRoutes(out)
	return out, nil
}

// receivedRoute is one FRR path as the lab reports it; a path FRR originated itself
// (no peer) is not one.
func receivedRoute(prefix netip.Prefix, p frr.Path) (bgp.ReceivedRoute, bool) {
	neighbor, err := netip.ParseAddr(p.PeerID)
	if err != nil || neighbor.IsUnspecified() {
		return bgp.ReceivedRoute{}, false
	}
	r := bgp.ReceivedRoute{Neighbor: neighbor, Prefix: prefix}
	if len(p.Nexthops) > 0 {
		r.NextHop, _ = netip.ParseAddr(p.Nexthops[0].IP)
	}
	for _, asn := range strings.Fields(p.ASPath) {
		if v, err := strconv.ParseUint(asn, 10, 32); err == nil {
			r.ASPath = append(r.ASPath, uint32(v))
		}
	}
	for _, c := range p.Communities {
		if v, err := kbgpv1.ParseStandardCommunity(c); err == nil {
			r.Attributes.Communities = append(r.Attributes.Communities, v)
		}
	}
	for _, c := range p.LargeCommunities {
		if v, err := kbgpv1.ParseLargeCommunity(c); err == nil {
			r.Attributes.LargeCommunities = append(r.Attributes.LargeCommunities, bgp.LargeCommunity{GlobalAdmin: v[0], LocalData1: v[1], LocalData2: v[2]})
		}
	}
	return r, true
}
