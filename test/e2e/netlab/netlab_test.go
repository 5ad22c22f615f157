package netlab

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kbgp.io/kbgp/internal/frr"
)

const (
	frrASN   = 65010
	birdASN  = 65020
	gobgpASN = 65030
)

// labDirs collects the lab directories of this run for TestZZNoLeftovers.
var labDirs []string

func newLab(t *testing.T) *Lab {
	lab := New(t)
	labDirs = append(labDirs, lab.Dir())
	return lab
}

func TestRoutersTopology(t *testing.T) {
	lab := newLab(t)
	r1 := lab.Namespace("frr")
	r2 := lab.Namespace("bird")
	r3 := lab.Namespace("gobgp")

	lab.Link(r1, "to-bird", []string{"10.1.0.1/30", "2001:db8:1::1/64"},
		r2, "to-frr", []string{"10.1.0.2/30", "2001:db8:1::2/64"})
	lab.Link(r1, "to-gobgp", []string{"10.1.1.1/30", "2001:db8:2::1/64"},
		r3, "to-frr", []string{"10.1.1.2/30", "2001:db8:2::2/64"})

	fr := StartFRR(r1, FRRConfig{
		ASN:         frrASN,
		RouterID:    "10.1.0.1",
		ListenAddrs: []string{"10.1.0.1", "2001:db8:1::1", "10.1.1.1", "2001:db8:2::1"},
		RawConfig: `
neighbor 10.1.0.2 remote-as 65020
neighbor 10.1.0.2 timers 3 9
neighbor 10.1.0.2 timers connect 1
neighbor 2001:db8:1::2 remote-as 65020
neighbor 2001:db8:1::2 timers connect 1
neighbor 10.1.1.2 remote-as 65030
neighbor 10.1.1.2 timers connect 1
neighbor 2001:db8:2::2 remote-as 65030
neighbor 2001:db8:2::2 timers connect 1
address-family ipv4 unicast
 network 198.51.100.0/24
 neighbor 10.1.0.2 route-map FROM-BIRD in
exit-address-family
address-family ipv6 unicast
 neighbor 2001:db8:1::2 activate
 neighbor 2001:db8:2::2 activate
exit-address-family
`,
		ExtraConfig: `
route-map FROM-BIRD permit 10
 set local-preference 150
exit
`,
	})

	bird := StartBIRD(r2, `
router id 10.1.0.2;
protocol device {}
protocol static static4 {
	ipv4;
	route 203.0.113.0/24 unreachable {
		bgp_community.add((65020,100));
		bgp_large_community.add((65020,1,2));
	};
}
protocol static static6 {
	ipv6;
	route 2001:db8:100::/48 unreachable {
		bgp_community.add((65020,600));
	};
}
protocol bgp frr4 {
	local 10.1.0.2 as 65020;
	neighbor 10.1.0.1 as 65010;
	hold time 9;
	connect retry time 1;
	graceful restart on;
	ipv4 { import all; export all; };
}
protocol bgp frr6 {
	local 2001:db8:1::2 as 65020;
	neighbor 2001:db8:1::1 as 65010;
	connect retry time 1;
	# FRR without zebra knows no interfaces and rejects a link-local
	# IPv6 next hop as a malformed MP_REACH_NLRI ("sent a v6 LL next-hop
	# and there's no peer interface information") and resets the
	# session; BIRD sends only the global next hop on multihop sessions.
	multihop;
	ipv6 { import all; export where proto = "static6"; };
}
`)

	gobgp := StartGoBGP(r3, `
[global.config]
  as = 65030
  router-id = "10.1.1.2"
  local-address-list = ["10.1.1.2", "2001:db8:2::2"]
[[neighbors]]
  [neighbors.config]
    neighbor-address = "10.1.1.1"
    peer-as = 65010
  [neighbors.timers.config]
    connect-retry = 1
  [[neighbors.afi-safis]]
    [neighbors.afi-safis.config]
      afi-safi-name = "ipv4-unicast"
[[neighbors]]
  [neighbors.config]
    neighbor-address = "2001:db8:2::1"
    peer-as = 65010
  [neighbors.timers.config]
    connect-retry = 1
  [neighbors.transport.config]
    local-address = "2001:db8:2::2"
  [[neighbors.afi-safis]]
    [neighbors.afi-safis.config]
      afi-safi-name = "ipv6-unicast"
`)

	const timeout = 30 * time.Second
	n4 := fr.WaitNeighborState(t, "10.1.0.2", "Established", timeout)
	fr.WaitNeighborState(t, "2001:db8:1::2", "Established", timeout)
	fr.WaitNeighborState(t, "10.1.1.2", "Established", timeout)
	p4 := bird.WaitEstablished(t, "frr4", timeout)
	bird.WaitEstablished(t, "frr6", timeout)
	gn := gobgp.WaitEstablished(t, "10.1.1.1", timeout)
	fr.WaitNeighborState(t, "2001:db8:2::2", "Established", timeout)
	gobgp.WaitEstablished(t, "2001:db8:2::1", timeout)

	if n4.RemoteRouterID != "10.1.0.2" || n4.RemoteAS != birdASN {
		t.Errorf("FRR neighbor 10.1.0.2: remote router id %q AS %d", n4.RemoteRouterID, n4.RemoteAS)
	}
	if n4.HoldTimeMsecs != 9000 || n4.KeepaliveMsecs != 3000 {
		t.Errorf("FRR neighbor 10.1.0.2: hold %d ms keepalive %d ms, want 9000/3000", n4.HoldTimeMsecs, n4.KeepaliveMsecs)
	}
	if n4.ConnectionsEstablished < 1 || n4.MessageStats.OpensRecv < 1 {
		t.Errorf("FRR neighbor 10.1.0.2: established %d opens received %d", n4.ConnectionsEstablished, n4.MessageStats.OpensRecv)
	}
	if n4.GracefulRestartInfo == nil || n4.Capabilities.GracefulRestart == "" {
		t.Errorf("FRR neighbor 10.1.0.2: no graceful restart info: %+v / %q", n4.GracefulRestartInfo, n4.Capabilities.GracefulRestart)
	}
	if p4.NeighborID != "10.1.0.1" || !strings.HasSuffix(p4.HoldTimer, "/9") {
		t.Errorf("BIRD frr4: neighbor id %q hold timer %q", p4.NeighborID, p4.HoldTimer)
	}
	if gn.PeerASN != frrASN || gn.NegotiatedHoldTime == 0 {
		t.Errorf("gobgpd neighbor: %+v", gn)
	}

	// BIRD's static prefix reaches FRR with its communities and the
	// local-preference set by FRR's import route-map.
	r := fr.WaitRoute(t, "ipv4", "203.0.113.0/24", timeout, nil)
	if !r.HasCommunity("65020:100") || !r.HasLargeCommunity("65020:1:2") {
		t.Errorf("FRR route 203.0.113.0/24: communities %v large %v", r.Communities, r.LargeCommunities)
	}
	if r.Nexthop != "10.1.0.2" || r.LocalPref == nil || *r.LocalPref != 150 || !r.Valid || !r.Best || r.Stale {
		t.Errorf("FRR route 203.0.113.0/24: %+v", r)
	}

	// And FRR re-advertises it to gobgpd; FRR's own network reaches BIRD.
	WaitFor(t, timeout, 200*time.Millisecond, func() (bool, string) {
		rs, err := gobgp.Routes("ipv4")
		if err != nil {
			return false, err.Error()
		}
		ps := rs["203.0.113.0/24"]
		if len(ps) == 0 || len(rs["198.51.100.0/24"]) == 0 {
			return false, fmt.Sprintf("gobgp rib: %+v", rs)
		}
		return ps[0].HasCommunity("65020:100") && ps[0].Nexthop == "10.1.1.1", fmt.Sprintf("gobgp path: %+v", ps[0])
	})
	bird.WaitRoute(t, "master4", "198.51.100.0/24", timeout, func(r BIRDRoute) bool {
		return r.Primary && r.Proto == "frr4" && r.ASPath == "65010" && r.Via == "10.1.0.1"
	})
	if rs, err := bird.Routes("master4"); err != nil {
		t.Errorf("BIRD routes: %v", err)
	} else if s := rs["203.0.113.0/24"]; !s.Primary || !s.HasCommunity("65020:100") || !s.HasLargeCommunity("65020:1:2") {
		t.Errorf("BIRD static route: %+v", s)
	}

	// IPv6: BIRD -> FRR -> gobgpd.
	r6 := fr.WaitRoute(t, "ipv6", "2001:db8:100::/48", timeout, nil)
	if r6.Nexthop != "2001:db8:1::2" || !r6.HasCommunity("65020:600") {
		t.Errorf("FRR route 2001:db8:100::/48: %+v", r6)
	}
	WaitFor(t, timeout, 200*time.Millisecond, func() (bool, string) {
		rs, err := gobgp.Routes("ipv6")
		if err != nil {
			return false, err.Error()
		}
		ps := rs["2001:db8:100::/48"]
		if len(ps) == 0 {
			return false, fmt.Sprintf("gobgp ipv6 rib: %+v", rs)
		}
		return ps[0].HasCommunity("65020:600") && ps[0].Nexthop == "2001:db8:2::1", fmt.Sprintf("gobgp path: %+v", ps[0])
	})

	// gobgpd injects a route, FRR sees it with its community.
	if err := gobgp.AddRoute("ipv4", "172.16.50.0/24", "nexthop", "10.1.1.2", "community", "65030:7"); err != nil {
		t.Fatal(err)
	}
	gr := fr.WaitRoute(t, "ipv4", "172.16.50.0/24", timeout, nil)
	if !gr.HasCommunity("65030:7") || gr.Nexthop != "10.1.1.2" || gr.ASPath != "65030" {
		t.Errorf("FRR route from gobgpd: %+v", gr)
	}

	// A Cease from BIRD is counted by FRR and the session comes back.
	if err := bird.DisableProtocol("frr4"); err != nil {
		t.Fatal(err)
	}
	down := fr.WaitNeighborState(t, "10.1.0.2", "Active", timeout)
	if down.MessageStats.NotificationsRecv < 1 || down.ConnectionsDropped < 1 {
		t.Errorf("FRR after BIRD disable: notifications received %d, dropped %d, last reset %q",
			down.MessageStats.NotificationsRecv, down.ConnectionsDropped, down.LastResetDueTo)
	}
	t.Logf("FRR after Cease: lastResetDueTo=%q lastNotificationReason=%q lastErrorCodeSubcode=%q",
		down.LastResetDueTo, down.LastNotificationReason, down.LastErrorCodeSubcode)
	if err := bird.EnableProtocol("frr4"); err != nil {
		t.Fatal(err)
	}
	up := fr.WaitNeighborState(t, "10.1.0.2", "Established", timeout)
	if up.ConnectionsEstablished < 2 {
		t.Errorf("FRR: connectionsEstablished %d after re-enable", up.ConnectionsEstablished)
	}
	bird.WaitEstablished(t, "frr4", timeout)
	fr.WaitRoute(t, "ipv4", "203.0.113.0/24", timeout, nil)

	// Cutting the link takes the sessions down (hold time 9 s on the IPv4
	// one); not waited for here to keep the test short. Instead, a BIRD
	// crash (SIGKILL, with graceful restart advertised) leaves FRR's copy
	// of the route stale.
	if err := bird.Proc.Kill(); err != nil {
		t.Fatal(err)
	}
	st := fr.WaitRoute(t, "ipv4", "203.0.113.0/24", timeout, func(r frr.Route) bool { return r.Stale })
	t.Logf("FRR route after BIRD crash: stale=%v", st.Stale)
	nb, err := fr.Neighbor("10.1.0.2")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("FRR neighbor after BIRD crash: state=%s lastResetDueTo=%q", nb.State, nb.LastResetDueTo)

	// Cutting a link is visible from the namespace.
	r1.SetLinkUp("to-gobgp", false)
	if out, err := r1.IP("-br", "link", "show", "to-gobgp"); err != nil || !strings.Contains(out, "DOWN") {
		t.Errorf("link to-gobgp after SetLinkUp(false): %v %s", err, out)
	}
}

func TestMultihopRoute(t *testing.T) {
	lab := newLab(t)
	a := lab.Namespace("a")
	mid := lab.Namespace("mid")
	b := lab.Namespace("b")
	lab.Link(a, "a-mid", []string{"172.16.1.1/24", "2001:db8:a::1/64"}, mid, "mid-a", []string{"172.16.1.254/24", "2001:db8:a::fe/64"})
	lab.Link(mid, "mid-b", []string{"172.16.2.254/24", "2001:db8:b::fe/64"}, b, "b-mid", []string{"172.16.2.1/24", "2001:db8:b::1/64"})
	mid.SetForwarding(true)
	a.AddRoute("172.16.2.0/24", "172.16.1.254")
	b.AddRoute("172.16.1.0/24", "172.16.2.254")
	a.AddRoute("2001:db8:b::/64", "2001:db8:a::fe")
	b.AddRoute("2001:db8:a::/64", "2001:db8:b::fe")
	// ping may not be installed: check reachability with socat over TCP.
	srv := b.Start("pong", "socat", "TCP6-LISTEN:7000,ipv6only=0,reuseaddr,fork", "SYSTEM:echo pong")
	b.WaitTCPListening(7000, 10*time.Second)
	for _, dst := range []string{"172.16.2.1:7000", "[2001:db8:b::1]:7000"} {
		out, err := a.Exec("socat", "-u", "TCP:"+dst+",connect-timeout=3", "STDOUT")
		if err != nil || !strings.Contains(out, "pong") {
			t.Errorf("TCP %s from a through mid: %v: %q", dst, err, out)
		}
	}
	mid.SetForwarding(false)
	if out, err := a.Exec("socat", "-u", "TCP:172.16.2.1:7000,connect-timeout=2", "STDOUT"); err == nil {
		t.Errorf("TCP through mid with forwarding off succeeded: %q", out)
	}
	if err := srv.Stop(); err != nil {
		t.Error(err)
	}
}

func TestRelay(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "hello-from-root")
	}))
	defer srv.Close()
	target := strings.TrimPrefix(srv.URL, "http://")

	lab := newLab(t)
	ns := lab.Namespace("relay")
	relay := lab.UnixRelay(ns, "127.0.0.1:6443", target)

	get := func() (string, error) {
		return ns.ExecTimeout(10*time.Second, "curl", "-sS", "--noproxy", "*", "--max-time", "3", "http://"+relay.Addr()+"/")
	}
	out, err := get()
	if err != nil || !strings.Contains(out, "hello-from-root") {
		t.Fatalf("GET through relay: %v: %s", err, out)
	}
	relay.Pause()
	if out, err := get(); err == nil {
		t.Fatalf("GET through paused relay succeeded: %s", out)
	}
	relay.Resume()
	out, err = get()
	if err != nil || !strings.Contains(out, "hello-from-root") {
		t.Fatalf("GET through resumed relay: %v: %s", err, out)
	}
	if relay.Accepted() != 2 {
		t.Errorf("relay accepted %d connections, want 2", relay.Accepted())
	}
}

func TestBridge(t *testing.T) {
	lab := newLab(t)
	sw := lab.Bridge("sw")
	var nss []*Namespace
	for i := 1; i <= 3; i++ {
		ns := lab.Namespace(fmt.Sprintf("h%d", i))
		sw.Attach(ns, "lan", []string{fmt.Sprintf("198.51.100.%d/24", i), fmt.Sprintf("2001:db8:50::%d/64", i)})
		nss = append(nss, ns)
	}
	nss[2].Start("pong", "socat", "TCP6-LISTEN:7000,ipv6only=0,reuseaddr,fork", "SYSTEM:echo pong")
	nss[2].WaitTCPListening(7000, 10*time.Second)
	for _, src := range nss[:2] {
		for _, dst := range []string{"198.51.100.3:7000", "[2001:db8:50::3]:7000"} {
			out, err := src.Exec("socat", "-u", "TCP:"+dst+",connect-timeout=3", "STDOUT")
			if err != nil || !strings.Contains(out, "pong") {
				t.Errorf("%s -> %s over bridge: %v: %q", src.Short, dst, err, out)
			}
		}
	}
}

func TestRefusesHostNetwork(t *testing.T) {
	for _, c := range []string{"192.0.2.5/24", "fd00::5/64", "8.8.8.8/32"} {
		if err := checkCIDR(c); err == nil {
			t.Errorf("checkCIDR(%q) accepted", c)
		}
	}
	for _, c := range []string{"10.1.0.1/30", "2001:db8:1::1/64", "203.0.113.1/24", "172.16.3.1/24", "198.51.100.9/24"} {
		if err := checkCIDR(c); err != nil {
			t.Errorf("checkCIDR(%q): %v", c, err)
		}
	}
}

// TestZZNoLeftovers runs last (tests run in source order) and checks that the
// labs above left no namespaces behind.
func TestZZNoLeftovers(t *testing.T) {
	out, err := exec.Command("ip", "netns", "list").CombinedOutput()
	if err != nil {
		t.Fatalf("ip netns list: %v: %s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, NamespacePrefix()) {
			t.Errorf("leftover namespace: %s", line)
		}
	}
	// No process started by a lab (all have a lab path on their command
	// line) may survive, and lab directories are removed.
	cmdlines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, f := range cmdlines {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		cl := strings.ReplaceAll(string(b), "\x00", " ")
		for _, d := range labDirs {
			if strings.Contains(cl, d) {
				t.Errorf("leftover process %s: %s", f, cl)
			}
		}
	}
	for _, d := range labDirs {
		if _, err := os.Stat(d); err == nil {
			t.Errorf("leftover lab dir %s", d)
		}
	}
}
