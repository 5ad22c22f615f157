package e2e

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/test/e2e/netlab"
)

// The pod-routes e2e's segment: an FRR route reflector and two nodes on one bridge.
const (
	podRoutesRR       = "10.81.0.1"
	podRoutesCluster  = "10.244.0.0/16"
	podRoutesOutside  = "172.16.99.0/24"
	podRouteProtoName = "210"
)

// The reflector's own routes that no node may install, besides podRoutesOutside and a
// default route: a /32 inside node 2's pod CIDR, a /25 inside node 1's and a
// more-specific of the nodes' subnet.
var podRoutesRefused = []string{"10.244.12.17/32", "10.244.11.128/25", "10.81.0.128/25"}

// TestPodRoutesThroughARouteReflector: two pod-network nodes on one L2 segment peer
// (iBGP) with an FRR route reflector that forwards nothing. Each announces its pod
// CIDR; with importPodRoutes each installs the other's into its kernel, next hop the
// other node, under kbgp's route protocol, and reports the count (node 1 knows the
// cluster's pod range from --cluster-pod-cidrs, node 2 from the Nodes' pod CIDRs); the reflector's own
// routes that are no Node's pod CIDR (a prefix outside the pod ranges, a default route,
// more-specifics of a node's pod CIDR and of the node subnet) are not installed and are
// counted by reason, and the connected routes stay byte-identical; a pod
// on each node (Debian's CNI plugins, driven through libcni from the agent's CNI
// configuration) reaches the other over TCP, node to node.
// An agent restarted gracefully keeps its node's routes in the kernel throughout and,
// after the reflector's End-of-RIB, sweeps a kbgp route no peer sent again. A node's
// BGP configuration deleted withdraws its pod CIDR, and the other node removes the
// route.
func TestPodRoutesThroughARouteReflector(t *testing.T) {
	independent(t)
	lab := netlab.New(t)
	br := lab.Bridge("seg")
	rrNS := lab.Namespace("rr")
	br.Attach(rrNS, "to-seg", []string{podRoutesRR + "/24"})
	names := make([]string, 2)
	addrs := []string{"10.81.0.11", "10.81.0.12"}
	cidrs := []string{"10.244.11.0/24", "10.244.12.0/24"}
	nodes := make([]*netlab.Namespace, 2)
	var cfg strings.Builder
	for i := range nodes {
		names[i] = fmt.Sprintf("e2e-podrt-%d-%s", i+1, strings.Trim(lab.Prefix(), "-"))
		nodes[i] = lab.Namespace(fmt.Sprintf("node%d", i+1))
		br.Attach(nodes[i], "to-seg", []string{addrs[i] + "/24"})
		fmt.Fprintf(&cfg, "neighbor %s remote-as 65001\nneighbor %s timers 3 9\nneighbor %s timers connect 1\n", addrs[i], addrs[i], addrs[i])
	}
	cfg.WriteString("bgp graceful-restart\naddress-family ipv4 unicast\n")
	for _, a := range addrs {
		fmt.Fprintf(&cfg, " neighbor %s route-reflector-client\n", a)
	}
	cfg.WriteString(" network " + podRoutesOutside + "\n network 0.0.0.0/0\n")
	for _, p := range podRoutesRefused {
		cfg.WriteString(" network " + p + "\n")
	}
	cfg.WriteString("exit-address-family\n")
	rr := netlab.StartFRR(rrNS, netlab.FRRConfig{ASN: 65001, RouterID: podRoutesRR, ListenAddrs: []string{podRoutesRR}, RawConfig: cfg.String()})

	ensureNamespace(t)
	sel := &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"advertise": kbgpv1.LabelValue(names[0])}}
	pc := &kbgpv1.BGPPeerConfig{ObjectMeta: metav1.ObjectMeta{Name: names[0]}, Spec: kbgpv1.BGPPeerConfigSpec{
		Timers:          &kbgpv1.BGPTimers{ConnectRetryTimeSeconds: ptr.To[int32](1), HoldTimeSeconds: ptr.To[int32](9), KeepAliveTimeSeconds: ptr.To[int32](3)},
		GracefulRestart: &kbgpv1.BGPGracefulRestart{Enabled: true, RestartTimeSeconds: ptr.To[int32](120)},
		Families:        []kbgpv1.BGPFamily{{AFI: kbgpv1.AFIIPv4, SAFI: kbgpv1.SAFIUnicast, Advertisements: sel, ImportPodRoutes: true}},
	}}
	ad := &kbgpv1.BGPAdvertisement{ObjectMeta: metav1.ObjectMeta{Name: names[0], Labels: map[string]string{"advertise": names[0]}},
		Spec: kbgpv1.BGPAdvertisementSpec{Advertisements: []kbgpv1.Advertisement{{AdvertisementType: kbgpv1.AdvertisementPodCIDR}}}}
	create(t, pc, ad)
	agents := make([]*agentProcess, 2)
	confDirs := []string{t.TempDir(), t.TempDir()}
	for i, name := range names {
		create(t, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NodeSpec{PodCIDRs: []string{cidrs[i]}}},
			&kbgpv1.BGPNodeConfig{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: kbgpv1.BGPNodeConfigSpec{BGPInstances: []kbgpv1.BGPNodeInstance{{
				BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: 65001, RouterID: addrs[i]},
				Peers: []kbgpv1.BGPNodePeer{{BGPPeer: kbgpv1.BGPPeer{Name: "rr", PeerAddress: podRoutesRR, PeerASN: 65001,
					PeerConfigRef: &kbgpv1.PeerConfigReference{Name: pc.Name}}}},
			}}}})
		// Node 1 is told the cluster's pod range; node 2 takes the Nodes' pod CIDRs.
		var extra []string
		if i == 0 {
			extra = []string{"--cluster-pod-cidrs", podRoutesCluster}
		}
		agents[i] = startPodNetworkAgent(t, lab, nodes[i], name, confDirs[i], extra...)
	}
	connected := make([]string, 2)
	for i := range nodes {
		connected[i] = nodes[i].MustExec("ip", "route", "show", "table", "main", "proto", "kernel")
	}
	for _, a := range addrs {
		rr.WaitNeighborState(t, a, "Established", sessionTimeout)
	}

	waitPodRoutes(t, nodes[0], map[string]string{cidrs[1]: addrs[1]})
	waitPodRoutes(t, nodes[1], map[string]string{cidrs[0]: addrs[0]})
	for i, name := range names {
		netlab.WaitFor(t, sessionTimeout, 300*time.Millisecond, func() (bool, string) {
			st := nodeStatus(t, name)
			return st.PodNetwork != nil && st.PodNetwork.InstalledRoutes == 1, fmt.Sprintf("node %d status.podNetwork %+v", i+1, st.PodNetwork)
		})
		if out := nodes[i].MustExec("ip", "route", "show", "table", "main"); strings.Contains(out, podRoutesOutside) || strings.Contains(out, "default") {
			t.Errorf("node %d installed a route the reflector sent outside the pod ranges:\n%s", i+1, out)
		}
		if got := nodes[i].MustExec("ip", "route", "show", "table", "main", "proto", "kernel"); got != connected[i] {
			t.Errorf("node %d's connected routes changed:\nbefore:\n%s\nafter:\n%s", i+1, connected[i], got)
		}
	}
	// Each refusal is counted by its reason (node 1: the /32 is a more-specific of
	// node 2's pod CIDR, the /25 inside its own, the rest outside the pod ranges).
	netlab.WaitFor(t, sessionTimeout, 300*time.Millisecond, func() (bool, string) {
		page := agents[0].metrics(t)
		// At least: an UPDATE that arrives while importing starts is seen twice.
		for reason, least := range map[string]float64{"not-a-node-pod-cidr": 1, "own-pod-cidr": 1, "outside-pod-ranges": 3} {
			if n := sampleValue(page, `kbgp_pod_routes_rejected_total{reason="`+reason+`"}`); n < least {
				return false, fmt.Sprintf("node 1: kbgp_pod_routes_rejected_total{reason=%q} %v, want at least %v, in\n%s", reason, n, least, grepLines(page, "kbgp_pod_routes"))
			}
		}
		return true, ""
	})

	// A pod on each node, from the agent's CNI configuration: TCP both ways, node to
	// node straight over the segment along the installed routes.
	pods := make([]*cniPod, 2)
	for i := range nodes {
		nodes[i].SetForwarding(true)
		rt := newCNIRuntime(t, nodes[i], filepath.Join(confDirs[i], "10-kbgp.conflist"))
		pods[i] = rt.newPod(fmt.Sprintf("pod%d", i+1))
		rt.add(pods[i])
		podServes(pods[i], fmt.Sprintf("pod%d", i+1), 8080, 0)
	}
	tcpAnswers(t, pods[0].ns, "TCP:"+pods[1].ip4.String()+":8080", "pod2")
	tcpAnswers(t, pods[1].ns, "TCP:"+pods[0].ip4.String()+":8080", "pod1")
	// The gateway each node's first pod got from the CNI result is in its status.
	for i, name := range names {
		want := pods[i].gateway4.String()
		netlab.WaitFor(t, sessionTimeout, 500*time.Millisecond, func() (bool, string) {
			st := nodeStatus(t, name)
			return st.PodNetwork != nil && slices.Equal(st.PodNetwork.Gateways, []string{want}),
				fmt.Sprintf("node %d status.podNetwork %+v, want gateways [%s]", i+1, st.PodNetwork, want)
		})
	}

	// importPodRoutes off on the running sessions: the routes leave; on again: the
	// routes the reflector already sent come back. No session is reset either way.
	drops := []int{dropped(t, rr, addrs[0]), dropped(t, rr, addrs[1])}
	setImport := func(on bool) {
		update(t, &kbgpv1.BGPPeerConfig{ObjectMeta: metav1.ObjectMeta{Name: pc.Name}}, func(pc *kbgpv1.BGPPeerConfig) {
			pc.Spec.Families[0].ImportPodRoutes = on
		})
	}
	setImport(false)
	waitPodRoutes(t, nodes[0], map[string]string{})
	waitPodRoutes(t, nodes[1], map[string]string{})
	setImport(true)
	waitPodRoutes(t, nodes[0], map[string]string{cidrs[1]: addrs[1]})
	waitPodRoutes(t, nodes[1], map[string]string{cidrs[0]: addrs[0]})
	for i, a := range addrs {
		if got := dropped(t, rr, a); got != drops[i] {
			t.Errorf("node %d's session dropped (%d -> %d) when importPodRoutes changed", i+1, drops[i], got)
		}
	}

	// Node 1's agent restarted gracefully, a stale kbgp route planted meanwhile.
	const planted = "10.244.77.0/24"
	nodes[0].MustExec("ip", "route", "add", planted, "via", addrs[1], "proto", podRouteProtoName)
	if err := agents[0].proc.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if !agents[0].proc.Wait(20 * time.Second) {
		t.Fatal("agent did not exit within 20 s of SIGTERM")
	}
	agents[0].relay.Close()
	agents[0] = startPodNetworkAgent(t, lab, nodes[0], names[0], confDirs[0], "--cluster-pod-cidrs", podRoutesCluster)
	for deadline := time.Now().Add(sessionTimeout); ; {
		got, err := podRoutesIn(nodes[0])
		if err != nil {
			t.Fatal(err)
		}
		if got[cidrs[1]] != addrs[1] {
			t.Fatalf("node 1 lost its route to node 2's pods during the restart: %v", got)
		}
		if _, ok := got[planted]; !ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the planted stale route was not swept after the reflector's End-of-RIB: %v", got)
		}
		time.Sleep(100 * time.Millisecond)
	}

	// Node 2's BGP configuration deleted: the reflector withdraws its pod CIDR.
	if err := server.Client.Delete(t.Context(), &kbgpv1.BGPNodeConfig{ObjectMeta: metav1.ObjectMeta{Name: names[1]}}); err != nil {
		t.Fatal(err)
	}
	waitPodRoutes(t, nodes[0], map[string]string{})
}

// sampleValue is the value of series (name{labels} exactly as the page has it), 0 when
// the page has none.
func sampleValue(page, series string) float64 {
	for _, l := range strings.Split(page, "\n") {
		if v, ok := strings.CutPrefix(l, series+" "); ok {
			f, _ := strconv.ParseFloat(v, 64)
			return f
		}
	}
	return 0
}

// startPodNetworkAgent starts an agent that is its node's pod network, its CNI
// configuration and state in the test's temporary directories.
// The CNI configuration goes to confDir.
func startPodNetworkAgent(t *testing.T, lab *netlab.Lab, ns *netlab.Namespace, node, confDir string, extraArgs ...string) *agentProcess {
	t.Helper()
	args := append([]string{"--pod-network", "--cni-conf-dir", confDir, "--cni-state-dir", t.TempDir(), "--cni-ipam-dir", t.TempDir()}, extraArgs...)
	return startAgentProcess(t, lab, ns, node, t.TempDir(), true, args...)
}

// podServes starts a TCP server in pod answering name on port (IPv4 and, with port6,
// IPv6).
func podServes(pod *cniPod, name string, port4, port6 int) {
	pod.ns.Start("echo4", "socat", fmt.Sprintf("TCP4-LISTEN:%d,fork,reuseaddr", port4), "SYSTEM:echo "+name)
	pod.ns.WaitTCPListening(port4, 10*time.Second)
	if port6 != 0 {
		pod.ns.Start("echo6", "socat", fmt.Sprintf("TCP6-LISTEN:%d,fork,reuseaddr,ipv6only=1", port6), "SYSTEM:echo "+name)
		pod.ns.WaitTCPListening(port6, 10*time.Second)
	}
}

// waitPodRoutes waits until kbgp's routes in ns's main table are exactly want
// (prefix → next hop).
func waitPodRoutes(t *testing.T, ns *netlab.Namespace, want map[string]string) {
	t.Helper()
	netlab.WaitFor(t, sessionTimeout, 300*time.Millisecond, func() (bool, string) {
		got, err := podRoutesIn(ns)
		if err != nil {
			return false, err.Error()
		}
		if len(got) != len(want) {
			return false, fmt.Sprintf("%s: kbgp's routes %v, want %v", ns, got, want)
		}
		for p, via := range want {
			if got[p] != via {
				return false, fmt.Sprintf("%s: kbgp's routes %v, want %v", ns, got, want)
			}
		}
		return true, ""
	})
}

// podRoutesIn reads kbgp's IPv4 routes in ns's main table.
func podRoutesIn(ns *netlab.Namespace) (map[string]string, error) {
	return routesIn(ns, "-4", podRouteProtoName)
}

// routesIn reads the routes of protocol proto in ns's main table, of family ("-4" or
// "-6"): prefix → gateway.
func routesIn(ns *netlab.Namespace, family, proto string) (map[string]string, error) {
	out, err := ns.Exec("ip", family, "-j", "route", "show", "table", "main", "proto", proto)
	if err != nil {
		return nil, err
	}
	var routes []struct {
		Dst     string `json:"dst"`
		Gateway string `json:"gateway"`
	}
	if err := json.Unmarshal([]byte(out), &routes); err != nil {
		return nil, fmt.Errorf("ip -j route: %w: %s", err, out)
	}
	got := map[string]string{}
	for _, r := range routes {
		got[r.Dst] = r.Gateway
	}
	return got, nil
}

// TestPodToPodThroughARouter: two pod-network nodes, each linked to an FRR router (with
// zebra: the routes it learns reach its kernel) that forwards between them. Each node
// announces its IPv4 and IPv6 pod CIDRs over one IPv4 session (the IPv6 ones with the
// node's IPv6 address as next hop) and points its default routes at the router; a pod
// on each node, from the agent's CNI configuration, reaches the other over TCP in both
// families, along the router's BGP routes.
func TestPodToPodThroughARouter(t *testing.T) {
	independent(t)
	lab := netlab.New(t)
	routerNS := lab.Namespace("router")
	routerNS.SetForwarding(true)
	type side struct {
		name, v4, v6, rv4, rv6, cidr4, cidr6 string
		ns                                   *netlab.Namespace
		confDir                              string
		pod                                  *cniPod
	}
	sides := []*side{
		{v4: "10.82.1.1", v6: "2001:db8:82:1::1", rv4: "10.82.1.2", rv6: "2001:db8:82:1::2", cidr4: "10.244.21.0/24", cidr6: "2001:db8:21::/64"},
		{v4: "10.82.2.1", v6: "2001:db8:82:2::1", rv4: "10.82.2.2", rv6: "2001:db8:82:2::2", cidr4: "10.244.22.0/24", cidr6: "2001:db8:22::/64"},
	}
	var cfg strings.Builder
	for i, s := range sides {
		s.name = fmt.Sprintf("e2e-podnet-%d-%s", i+1, strings.Trim(lab.Prefix(), "-"))
		s.ns = lab.Namespace(fmt.Sprintf("node%d", i+1))
		s.confDir = t.TempDir()
		lab.Link(s.ns, "to-router", []string{s.v4 + "/30", s.v6 + "/64"}, routerNS, fmt.Sprintf("to-node%d", i+1), []string{s.rv4 + "/30", s.rv6 + "/64"})
		s.ns.SetForwarding(true)
		s.ns.AddRoute("default", s.rv4)
		s.ns.AddRoute("default6", s.rv6)
		fmt.Fprintf(&cfg, "neighbor %s remote-as %d\nneighbor %s timers 3 9\nneighbor %s timers connect 1\n", s.v4, 65001+i, s.v4, s.v4)
	}
	cfg.WriteString("address-family ipv6 unicast\n")
	for _, s := range sides {
		fmt.Fprintf(&cfg, " neighbor %s activate\n", s.v4)
	}
	cfg.WriteString("exit-address-family\n")
	router := netlab.StartFRR(routerNS, netlab.FRRConfig{ASN: 65010, RouterID: sides[0].rv4, ListenAddrs: []string{sides[0].rv4, sides[1].rv4}, Zebra: true, RawConfig: cfg.String()})

	ensureNamespace(t)
	label := sides[0].name
	sel := &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"advertise": kbgpv1.LabelValue(label)}}
	pc := &kbgpv1.BGPPeerConfig{ObjectMeta: metav1.ObjectMeta{Name: label}, Spec: kbgpv1.BGPPeerConfigSpec{
		Timers: &kbgpv1.BGPTimers{ConnectRetryTimeSeconds: ptr.To[int32](1), HoldTimeSeconds: ptr.To[int32](9), KeepAliveTimeSeconds: ptr.To[int32](3)},
		Families: []kbgpv1.BGPFamily{{AFI: kbgpv1.AFIIPv4, SAFI: kbgpv1.SAFIUnicast, Advertisements: sel},
			{AFI: kbgpv1.AFIIPv6, SAFI: kbgpv1.SAFIUnicast, Advertisements: sel}},
	}}
	ad := &kbgpv1.BGPAdvertisement{ObjectMeta: metav1.ObjectMeta{Name: label, Labels: map[string]string{"advertise": label}},
		Spec: kbgpv1.BGPAdvertisementSpec{Advertisements: []kbgpv1.Advertisement{{AdvertisementType: kbgpv1.AdvertisementPodCIDR}}}}
	create(t, pc, ad)
	for i, s := range sides {
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: s.name}, Spec: corev1.NodeSpec{PodCIDRs: []string{s.cidr4, s.cidr6}}}
		create(t, node, &kbgpv1.BGPNodeConfig{ObjectMeta: metav1.ObjectMeta{Name: s.name}, Spec: kbgpv1.BGPNodeConfigSpec{BGPInstances: []kbgpv1.BGPNodeInstance{{
			BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: int64(65001 + i), RouterID: s.v4},
			Peers: []kbgpv1.BGPNodePeer{{BGPPeer: kbgpv1.BGPPeer{Name: "router", PeerAddress: s.rv4, PeerASN: 65010,
				PeerConfigRef: &kbgpv1.PeerConfigReference{Name: pc.Name}}}},
		}}}})
		// The IPv6 pod CIDR's next hop is the node's IPv6 InternalIP.
		node.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: s.v4}, {Type: corev1.NodeInternalIP, Address: s.v6}}
		if err := server.Client.Status().Update(t.Context(), node); err != nil {
			t.Fatal(err)
		}
		startPodNetworkAgent(t, lab, s.ns, s.name, s.confDir)
	}
	for _, s := range sides {
		router.WaitNeighborState(t, s.v4, "Established", sessionTimeout)
		router.WaitRoute(t, "ipv4", s.cidr4, sessionTimeout, nil)
		router.WaitRoute(t, "ipv6", s.cidr6, sessionTimeout, nil)
	}
	// The router forwards along what BGP taught it: the pod CIDRs are in its kernel
	// from zebra, via each node.
	netlab.WaitFor(t, sessionTimeout, 300*time.Millisecond, func() (bool, string) {
		got4, err4 := routesIn(routerNS, "-4", "bgp")
		got6, err6 := routesIn(routerNS, "-6", "bgp")
		for _, s := range sides {
			if got4[s.cidr4] != s.v4 || got6[s.cidr6] != s.v6 {
				return false, fmt.Sprintf("the router's BGP routes: %v %v (%v %v)", got4, got6, err4, err6)
			}
		}
		return true, ""
	})

	for i, s := range sides {
		rt := newCNIRuntime(t, s.ns, filepath.Join(s.confDir, "10-kbgp.conflist"))
		s.pod = rt.newPod(fmt.Sprintf("pod%d", i+1))
		rt.add(s.pod)
		if !s.pod.ip4.IsValid() || !s.pod.ip6.IsValid() {
			t.Fatalf("pod%d got %s and %s, want an address of each family", i+1, s.pod.ip4, s.pod.ip6)
		}
		podServes(s.pod, fmt.Sprintf("pod%d", i+1), 8080, 8086)
	}
	for i, from := range sides {
		to := sides[1-i]
		want := fmt.Sprintf("pod%d", 2-i)
		tcpAnswers(t, from.pod.ns, "TCP:"+to.pod.ip4.String()+":8080", want)
		tcpAnswers(t, from.pod.ns, "TCP:["+to.pod.ip6.String()+"]:8086", want)
	}
}

// TestPodRoutesSurviveTheFirstEndOfRIB: a node imports from two FRR route reflectors;
// the second alone carries a third Node's pod CIDR. The node's agent restarts while
// that reflector is cut off (iptables in its namespace, so its End-of-RIB comes late):
// the first reflector's End-of-RIB does not sweep the route of the previous run that
// only the slower one carries, and it is still there, never missing, once that one is
// back.
func TestPodRoutesSurviveTheFirstEndOfRIB(t *testing.T) {
	independent(t)
	lab := netlab.New(t)
	br := lab.Bridge("seg")
	const nodeAddr, ownCIDR, otherCIDR = "10.83.0.11", "10.244.31.0/24", "10.244.33.0/24"
	rrAddrs := []string{"10.83.0.1", "10.83.0.2"}
	node := lab.Namespace("node")
	br.Attach(node, "to-seg", []string{nodeAddr + "/24"})
	rrs := make([]*netlab.FRR, 2)
	rrNS := make([]*netlab.Namespace, 2)
	for i, a := range rrAddrs {
		rrNS[i] = lab.Namespace(fmt.Sprintf("rr%d", i+1))
		br.Attach(rrNS[i], "to-seg", []string{a + "/24"})
		cfg := fmt.Sprintf("neighbor %s remote-as 65001\nneighbor %s timers 3 9\nneighbor %s timers connect 1\nbgp graceful-restart\naddress-family ipv4 unicast\n neighbor %s route-reflector-client\n",
			nodeAddr, nodeAddr, nodeAddr, nodeAddr)
		if i == 1 {
			cfg += " network " + otherCIDR + "\n"
		}
		rrs[i] = netlab.StartFRR(rrNS[i], netlab.FRRConfig{ASN: 65001, RouterID: a, ListenAddrs: []string{a}, RawConfig: cfg + "exit-address-family\n"})
	}

	ensureNamespace(t)
	name := "e2e-podeor-" + strings.Trim(lab.Prefix(), "-")
	pc := &kbgpv1.BGPPeerConfig{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: kbgpv1.BGPPeerConfigSpec{
		Timers:          &kbgpv1.BGPTimers{ConnectRetryTimeSeconds: ptr.To[int32](1), HoldTimeSeconds: ptr.To[int32](9), KeepAliveTimeSeconds: ptr.To[int32](3)},
		GracefulRestart: &kbgpv1.BGPGracefulRestart{Enabled: true, RestartTimeSeconds: ptr.To[int32](120)},
		Families:        []kbgpv1.BGPFamily{{AFI: kbgpv1.AFIIPv4, SAFI: kbgpv1.SAFIUnicast, ImportPodRoutes: true}},
	}}
	var peers []kbgpv1.BGPNodePeer
	for i, a := range rrAddrs {
		peers = append(peers, kbgpv1.BGPNodePeer{BGPPeer: kbgpv1.BGPPeer{Name: fmt.Sprintf("rr%d", i+1), PeerAddress: a, PeerASN: 65001,
			PeerConfigRef: &kbgpv1.PeerConfigReference{Name: pc.Name}}})
	}
	create(t, pc,
		// The third Node runs no agent here: the second reflector announces its pod CIDR.
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name + "-other"}, Spec: corev1.NodeSpec{PodCIDRs: []string{otherCIDR}}},
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NodeSpec{PodCIDRs: []string{ownCIDR}}},
		&kbgpv1.BGPNodeConfig{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: kbgpv1.BGPNodeConfigSpec{BGPInstances: []kbgpv1.BGPNodeInstance{{
			BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: 65001, RouterID: nodeAddr}, Peers: peers,
		}}}})
	confDir := t.TempDir()
	agent := startPodNetworkAgent(t, lab, node, name, confDir, "--cluster-pod-cidrs", podRoutesCluster)
	for _, rr := range rrs {
		rr.WaitNeighborState(t, nodeAddr, "Established", sessionTimeout)
	}
	want := map[string]string{otherCIDR: rrAddrs[1]}
	waitPodRoutes(t, node, want)

	// The second reflector cut off from the node, then the agent restarted: the first
	// reflector's session comes back (with its End-of-RIB) long before.
	cut := [][]string{{"INPUT", "-s", nodeAddr, "-j", "DROP"}, {"OUTPUT", "-d", nodeAddr, "-j", "DROP"}}
	for _, r := range cut {
		rrNS[1].MustExec(append([]string{"iptables", "-w", "-A"}, r...)...)
	}
	restored := false
	t.Cleanup(func() {
		for _, r := range cut {
			if !restored {
				rrNS[1].Exec(append([]string{"iptables", "-w", "-D"}, r...)...)
			}
		}
	})
	if err := agent.proc.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if !agent.proc.Wait(20 * time.Second) {
		t.Fatal("agent did not exit within 20 s of SIGTERM")
	}
	agent.relay.Close()
	// The old session is gone (the agent's socket closed with it) before the new agent
	// starts, so the next Established is the new session.
	netlab.WaitFor(t, sessionTimeout, 100*time.Millisecond, func() (bool, string) {
		n, err := rrs[0].Neighbor(nodeAddr)
		return err == nil && n.State != "Established", fmt.Sprintf("the first reflector's old session: %s %v", n.State, err)
	})
	startPodNetworkAgent(t, lab, node, name, confDir, "--cluster-pod-cidrs", podRoutesCluster)
	stillThere := func(what string, d time.Duration) {
		for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
			got, err := podRoutesIn(node)
			if err != nil {
				t.Fatal(err)
			}
			if got[otherCIDR] != rrAddrs[1] {
				t.Fatalf("%s: the route only the slower reflector carries is gone: %v", what, got)
			}
		}
	}
	netlab.WaitFor(t, sessionTimeout, 200*time.Millisecond, func() (bool, string) {
		got, err := podRoutesIn(node)
		if err != nil || got[otherCIDR] != rrAddrs[1] {
			t.Fatalf("while the first reflector comes back: the route only the slower one carries is gone: %v %v", got, err)
		}
		n, err := rrs[0].Neighbor(nodeAddr)
		return err == nil && n.State == "Established", fmt.Sprintf("the first reflector's new session: %s %v", n.State, err)
	})
	// Its End-of-RIB has arrived well within this.
	stillThere("after the first reflector's End-of-RIB", 10*time.Second)

	for _, r := range cut {
		rrNS[1].MustExec(append([]string{"iptables", "-w", "-D"}, r...)...)
	}
	restored = true
	rrs[1].WaitNeighborState(t, nodeAddr, "Established", sessionTimeout)
	stillThere("after the second reflector's End-of-RIB", 5*time.Second)
}
