package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/adjribapi"
	"kbgp.io/kbgp/test/e2e/netlab"
)

// The server behind both ToRs: on its loopback, reached over a /30 to each.
const (
	hostServer     = "10.36.255.1"
	hostServerPort = 7034
)

// TestFabricDefaultRouteInTheKernel is the routing-on-the-host data path: both ToRs
// send a default route (and torPrefix, which the node's import policy leaves out) over
// unnumbered sessions; the node's kernel has one default route, kbgp's protocol, over
// both ToRs' link-local addresses (RFC 8950); TCP from the node's loopback address
// reaches the server behind the ToRs. One uplink cut at the ToR: within the hold time
// the route keeps only the other ToR, and the TCP connection carries on; the link back:
// two next hops again, and the other ToR's session was never reset. The server answers
// over tor2, the ToR whose link stays up.
func TestFabricDefaultRouteInTheKernel(t *testing.T) {
	independent(t)
	f := startFabric(t, false)
	drops := dropped(t, f.tors["up2"], "to-node")

	f.tors["up1"].Namespace().SetLinkUp("to-node", false)
	cut := time.Now()
	waitDefaultVia(t, f.node, []string{"up2"}, 9*time.Second+5*time.Second)
	t.Logf("the default route lost up1's next hop %v after the cut (hold time 9 s)", time.Since(cut).Round(100*time.Millisecond))
	f.echo("during")

	f.tors["up1"].Namespace().SetLinkUp("to-node", true)
	f.tors["up1"].WaitNeighborState(t, "to-node", "Established", sessionTimeout)
	waitDefaultVia(t, f.node, []string{"up1", "up2"}, sessionTimeout)
	f.echo("after")
	if got := dropped(t, f.tors["up2"], "to-node"); got != drops {
		t.Errorf("tor2's session dropped (%d -> %d) while up1 went down and up", drops, got)
	}
}

// TestFabricRouteFollowsBFD: with BFD on the interface sessions (300 ms, x3), a ToR
// that goes silent on a link that stays up (every packet dropped, both families) loses
// its next hop within about a second, well before the 9 s hold time, and the TCP
// connection carries on over the other ToR.
func TestFabricRouteFollowsBFD(t *testing.T) {
	independent(t)
	f := startFabric(t, true)
	netlab.WaitFor(t, sessionTimeout, 500*time.Millisecond, func() (bool, string) {
		var got []string
		for _, name := range []string{"tor1", "tor2"} {
			if st := peerStatus(t, f.nodeName, name).BFDState; st != kbgpv1.BFDStateUp {
				got = append(got, name+" "+string(st))
			}
		}
		return len(got) == 0, fmt.Sprintf("BFD not up: %v", got)
	})
	since := silence(t, f.tors["up1"].Namespace(), "to-node")
	waitDefaultVia(t, f.node, []string{"up2"}, 3*time.Second)
	t.Logf("the default route lost up1's next hop %v after the silence (BFD 300 ms x3, hold time 9 s)", time.Since(since).Round(100*time.Millisecond))
	f.echo("during")
}

// fabric is the routing-on-the-host topology with the node's agent running and its
// default route over both ToRs, and a TCP connection from the node's loopback address
// to the server behind them.
type fabric struct {
	node     *netlab.Namespace
	nodeName string
	tors     map[string]*netlab.FRR
	// echo sends a line over the connection and wants it back.
	echo func(string)
}

func startFabric(t *testing.T, withBFD bool) fabric {
	t.Helper()
	lab := netlab.New(t)
	f := fabric{node: lab.Namespace("node"), nodeName: "e2e-fabric-" + strings.Trim(lab.Prefix(), "-")}
	srv := lab.Namespace("srv")
	srv.AddAddr("lo", hostServer+"/32")
	f.tors = startToRs(lab, f.node, torOptions{ipv4: " neighbor to-node default-originate\n", bfd: withBFD, before: func(up string, tor *netlab.Namespace) {
		n := up[2:]
		lab.Link(tor, "to-srv", []string{"10.36." + n + ".1/30"}, srv, "tor"+n, []string{"10.36." + n + ".2/30"})
		tor.SetForwarding(true)
		tor.AddRoute(hostServer+"/32", "10.36."+n+".2")
	}})
	srv.AddRoute(hostLoopback+"/32", "10.36.2.1")
	srv.Start("echo", "socat", "TCP-LISTEN:"+fmt.Sprint(hostServerPort)+",bind="+hostServer+",fork,reuseaddr", "EXEC:cat")
	srv.WaitTCPListening(hostServerPort, 10*time.Second)

	ensureNamespace(t)
	pc := &kbgpv1.BGPPeerConfig{ObjectMeta: metav1.ObjectMeta{Name: f.nodeName}, Spec: kbgpv1.BGPPeerConfigSpec{
		Timers: &kbgpv1.BGPTimers{ConnectRetryTimeSeconds: ptr.To[int32](1), HoldTimeSeconds: ptr.To[int32](9), KeepAliveTimeSeconds: ptr.To[int32](3)},
		Families: []kbgpv1.BGPFamily{{AFI: kbgpv1.AFIIPv4, SAFI: kbgpv1.SAFIUnicast,
			Advertisements: &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"advertise": kbgpv1.LabelValue(f.nodeName)}},
			Import:         &kbgpv1.RouteImport{AllowDefaultRoute: true, MaxRoutes: ptr.To[int32](10)}}},
	}}
	if withBFD {
		pc.Spec.BFD = &kbgpv1.BGPBFD{Enabled: true, MinRxMilliseconds: ptr.To[int32](300), MinTxMilliseconds: ptr.To[int32](300), DetectMultiplier: ptr.To[int32](3)}
	}
	peer := func(name, iface string, asn int64) kbgpv1.BGPNodePeer {
		return kbgpv1.BGPNodePeer{BGPPeer: kbgpv1.BGPPeer{Name: name, Interface: iface, PeerASN: asn, PeerConfigRef: &kbgpv1.PeerConfigReference{Name: pc.Name}}}
	}
	nc := &kbgpv1.BGPNodeConfig{ObjectMeta: metav1.ObjectMeta{Name: f.nodeName}, Spec: kbgpv1.BGPNodeConfigSpec{BGPInstances: []kbgpv1.BGPNodeInstance{{
		BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: 65034, RouterID: hostLoopback},
		Peers:               []kbgpv1.BGPNodePeer{peer("tor1", "up1", 65101), peer("tor2", "up2", 65102)},
	}}}}
	loopback := &kbgpv1.BGPAdvertisement{
		ObjectMeta: metav1.ObjectMeta{Name: f.nodeName + "-lo", Labels: map[string]string{"advertise": f.nodeName}},
		Spec: kbgpv1.BGPAdvertisementSpec{Advertisements: []kbgpv1.Advertisement{
			{AdvertisementType: kbgpv1.AdvertisementNodeAddress, NodeAddress: &kbgpv1.NodeAddressAdvertisement{Interface: "lo"}}}},
	}
	f.node.AddAddr("lo", hostLoopback+"/32")
	create(t, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: f.nodeName}}, pc, loopback, nc)
	startAgent(t, lab, f.node, f.nodeName)

	for _, tor := range f.tors {
		tor.WaitNeighborState(t, "to-node", "Established", sessionTimeout)
	}
	waitDefaultVia(t, f.node, []string{"up1", "up2"}, sessionTimeout)
	netlab.WaitFor(t, sessionTimeout, 500*time.Millisecond, func() (bool, string) {
		var got []string
		for _, name := range []string{"tor1", "tor2"} {
			p := peerStatus(t, f.nodeName, name)
			if p.RoutesInstalled == nil || p.RoutesRejected == nil || *p.RoutesInstalled != 1 || *p.RoutesRejected != 1 {
				got = append(got, fmt.Sprintf("%s installed %v rejected %v", name, p.RoutesInstalled, p.RoutesRejected))
			}
		}
		return len(got) == 0, fmt.Sprintf("want 1 installed (the default route), 1 rejected (%s) per ToR: %v", torPrefix, got)
	})
	// What `kubectl bgp routes --received` reads: the default route is among what
	// each ToR sent, in the kernel; torPrefix not, because of the policy; the node's
	// loopback not, a loop.
	received, err := f.node.ExecTimeout(10*time.Second, "curl", "-sf", "http://127.0.0.1:9080/bgp/routes?side=received")
	if err != nil || strings.Count(received, `"prefix":"0.0.0.0/0"`) != 2 {
		t.Errorf("the agent's received routes lack the ToRs' default routes (%v): %s", err, received)
	}
	var answer adjribapi.Routes
	if err := json.Unmarshal([]byte(received), &answer); err != nil {
		t.Fatalf("the agent's received routes: %v: %s", err, received)
	}
	kernel := map[string]string{}
	for _, p := range answer.Peers {
		for _, r := range p.Routes {
			if r.Kernel != nil {
				kernel[p.Name+" "+r.Prefix] = fmt.Sprintf("%v %s", r.Kernel.Installed, r.Kernel.Reason)
			}
		}
	}
	wantKernel := map[string]string{}
	for _, name := range []string{"tor1", "tor2"} {
		wantKernel[name+" 0.0.0.0/0"] = "true "
		wantKernel[name+" "+torPrefix] = "false not-in-import-policy"
		// The node's own loopback, sent back by the ToR with the node's AS in the path.
		wantKernel[name+" "+hostLoopback+"/32"] = "false as-path-loop"
	}
	if !maps.Equal(kernel, wantKernel) {
		t.Errorf("received routes in the kernel: %v, want %v", kernel, wantKernel)
	}
	f.echo = echoer(t, dialFrom(t, f.node, hostLoopback, fmt.Sprintf("%s:%d", hostServer, hostServerPort)))
	f.echo("before")
	return f
}

var routeDev = regexp.MustCompile(`dev (\S+)`)

// waitDefaultVia waits until the node's IPv4 default route is kbgp's (protocol 210)
// with next hops on exactly devs, each an IPv6 link-local address (RFC 8950).
func waitDefaultVia(t *testing.T, node *netlab.Namespace, devs []string, timeout time.Duration) {
	t.Helper()
	netlab.WaitFor(t, timeout, 200*time.Millisecond, func() (bool, string) {
		out, err := node.Exec("ip", "-4", "route", "show", "default")
		if err != nil {
			return false, err.Error()
		}
		var got []string
		for _, m := range routeDev.FindAllStringSubmatch(out, -1) {
			got = append(got, m[1])
		}
		slices.Sort(got)
		ok := strings.Contains(out, "proto 210") && slices.Equal(got, devs) && strings.Count(out, "via inet6 fe80::") == len(devs) &&
			!strings.Contains(out, "dead")
		return ok, fmt.Sprintf("default route %q, want kbgp's via link-local next hops on %v", out, devs)
	})
}

// dialFrom opens a TCP connection from the namespace ns, from address local, to
// target; it is closed when the test ends.
func dialFrom(t *testing.T, ns *netlab.Namespace, local, target string) net.Conn {
	t.Helper()
	var conn net.Conn
	err := inNetns(ns.Name, func(ctx context.Context) error {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}, Timeout: 10 * time.Second}
		var err error
		conn, err = d.DialContext(ctx, "tcp", target)
		return err
	})
	if err != nil {
		t.Fatalf("TCP from %s in %s to %s: %v", local, ns.Short, target, err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// echoer sends a line on conn and wants it back (the server echoes), within 30 s:
// TCP retransmits what the cut link lost.
func echoer(t *testing.T, conn net.Conn) func(string) {
	r := bufio.NewReader(conn)
	return func(line string) {
		t.Helper()
		if err := conn.SetDeadline(time.Now().Add(30 * time.Second)); err != nil {
			t.Fatal(err)
		}
		if _, err := fmt.Fprintln(conn, line); err != nil {
			t.Fatalf("TCP send %q: %v", line, err)
		}
		got, err := r.ReadString('\n')
		if err != nil || strings.TrimSpace(got) != line {
			t.Fatalf("TCP echo of %q: %q %v", line, got, err)
		}
	}
}
