package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/test/e2e/netlab"
)

// The multi-node e2e's segment: FRR and three nodes on one bridge.
const (
	multiFRR   = "10.71.0.1"
	multiLabel = "e2e-multinode"
	multiNS    = "e2e-multi"
)

// threeNodes is FRR and three node namespaces on one bridge: FRR (AS 65010, at .1 of
// the /24) peers with each node (.11 to .13, AS 65001), with multipath and zebra.
type threeNodes struct {
	frrNS, ctl   *netlab.Namespace
	frr          *netlab.FRR
	nodes, addrs []string
	ns           []*netlab.Namespace
}

// startThreeNodes builds threeNodes on net (a /24 written "10.71.0"), nodes named
// name-1 to name-3 (with the lab's prefix); bgpConfig goes into FRR's router bgp
// block before its address families.
func startThreeNodes(t *testing.T, lab *netlab.Lab, name, net, bgpConfig string) threeNodes {
	t.Helper()
	br := lab.Bridge("seg")
	s := threeNodes{frrNS: lab.Namespace("frr"), ctl: lab.Namespace("ctl")}
	frrAddr := net + ".1"
	br.Attach(s.frrNS, "to-seg", []string{frrAddr + "/24"})
	var cfg strings.Builder
	for i := range 3 {
		s.nodes = append(s.nodes, fmt.Sprintf("%s-%d-%s", name, i+1, strings.Trim(lab.Prefix(), "-")))
		s.addrs = append(s.addrs, fmt.Sprintf("%s.%d", net, 11+i))
		s.ns = append(s.ns, lab.Namespace(fmt.Sprintf("node%d", i+1)))
		br.Attach(s.ns[i], "to-seg", []string{s.addrs[i] + "/24"})
		fmt.Fprintf(&cfg, "neighbor %s remote-as 65001\nneighbor %s timers 3 9\nneighbor %s timers connect 1\n", s.addrs[i], s.addrs[i], s.addrs[i])
	}
	s.frr = netlab.StartFRR(s.frrNS, netlab.FRRConfig{ASN: 65010, RouterID: frrAddr, ListenAddrs: []string{frrAddr}, Zebra: true,
		RawConfig: cfg.String() + bgpConfig + "address-family ipv4 unicast\n maximum-paths 8\nexit-address-family\n"})
	return s
}

// TestSeveralNodesOneService is MetalLB's and frr-k8s's first multi-node scenario: three
// nodes announce one externalTrafficPolicy Cluster load-balancer address (given by a
// pool) to FRR with multipath, and FRR uses all three next hops; TCP from the router's
// side to the address reaches a node along the installed route. A cordoned node's path
// carries the GRACEFUL_SHUTDOWN community and FRR stops using it until uncordon; a
// node whose NetworkUnavailable condition is True withdraws the address until it clears. Then one node's agent
// is killed without graceful restart: only its path goes (the kernel closes the dead
// process's connection, so FRR sees it at once; the hold time bounds it otherwise),
// and the other sessions never drop. Then a node is relabelled out of its cluster
// config: its sessions close and its path leaves FRR, the last one stays.
func TestSeveralNodesOneService(t *testing.T) {
	lab := netlab.New(t)
	seg := startThreeNodes(t, lab, "e2e-multi", "10.71.0", "")
	frrNS, ctl, f, nodes, addrs, nsOf := seg.frrNS, seg.ctl, seg.frr, seg.nodes, seg.addrs, seg.ns
	createMultiNodeObjects(t, nodes)
	startOperatorProcess(t, lab, ctl)
	agents := make([]*agentProcess, 3)
	for i := range nodes {
		agents[i] = startAgent(t, lab, nsOf[i], nodes[i])
	}
	for _, a := range addrs {
		f.WaitNeighborState(t, a, "Established", sessionTimeout)
	}

	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: multiNS, Name: "web"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, ExternalTrafficPolicy: corev1.ServiceExternalTrafficPolicyCluster,
			Ports: []corev1.ServicePort{{Port: 80}}}}
	create(t, svc)
	prefix := waitIngress(t, svc, 1)[0].String() + "/32"
	waitNextHops(t, f, prefix, addrs)
	tcpReachesANode(t, frrNS, nsOf, strings.TrimSuffix(prefix, "/32"))
	before := map[string]int{}
	for _, a := range addrs {
		before[a] = dropped(t, f, a)
	}

	// Node 3 cordoned (graceful shutdown on drain, RFC 8326): its path carries
	// graceful-shutdown, which FRR honours with local preference 0, so FRR moves to the
	// other two; uncordoned, all three again. No session resets either way.
	cordon := func(on bool) {
		update(t, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: nodes[2]}}, func(n *corev1.Node) { n.Spec.Unschedulable = on })
	}
	cordon(true)
	waitNextHops(t, f, prefix, addrs[:2])
	waitPathCommunity(t, f, prefix, addrs[2], "gracefulShutdown", true)
	cordon(false)
	waitNextHops(t, f, prefix, addrs)
	waitPathCommunity(t, f, prefix, addrs[2], "gracefulShutdown", false)
	for _, a := range addrs {
		if got := dropped(t, f, a); got != before[a] {
			t.Errorf("session of %s dropped (%d -> %d) across cordon and uncordon", a, before[a], got)
		}
	}

	// Node 2's network reported unavailable: it stops announcing the Service address
	// until the condition clears.
	networkUnavailable := func(status corev1.ConditionStatus) {
		n := &corev1.Node{}
		if err := server.Client.Get(t.Context(), client.ObjectKey{Name: nodes[1]}, n); err != nil {
			t.Fatal(err)
		}
		n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeNetworkUnavailable, Status: status, Reason: "E2E", LastTransitionTime: metav1.Now()}}
		if err := server.Client.Status().Update(t.Context(), n); err != nil {
			t.Fatal(err)
		}
	}
	networkUnavailable(corev1.ConditionTrue)
	waitNextHops(t, f, prefix, []string{addrs[0], addrs[2]})
	networkUnavailable(corev1.ConditionFalse)
	waitNextHops(t, f, prefix, addrs)

	// Node 1's agent dies (SIGKILL: no NOTIFICATION, no graceful restart): FRR drops
	// the session, and with it that next hop only.
	if err := agents[0].proc.Kill(); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	waitNextHops(t, f, prefix, addrs[1:])
	if took := time.Since(killed); took > 9*time.Second+sessionTimeout/3 {
		t.Errorf("the dead node's next hop left after %s, well past the 9 s hold time", took)
	}
	for _, a := range addrs[1:] {
		if got := dropped(t, f, a); got != before[a] {
			t.Errorf("session of %s dropped (%d -> %d) when another node died", a, before[a], got)
		}
	}

	// Node 2 relabelled out of the cluster config: the operator removes its node
	// config, its agent closes its sessions, FRR keeps node 3's path alone.
	update(t, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: nodes[1]}}, func(n *corev1.Node) { delete(n.Labels, multiLabel) })
	waitNextHops(t, f, prefix, addrs[2:])
	netlab.WaitFor(t, sessionTimeout, 300*time.Millisecond, func() (bool, string) {
		n, err := f.Neighbor(addrs[1])
		return err == nil && n.State != "Established", fmt.Sprintf("FRR's session with the relabelled node: %s %v", n.State, err)
	})
	if got := dropped(t, f, addrs[2]); got != before[addrs[2]] {
		t.Errorf("session of %s dropped (%d -> %d) when another node left", addrs[2], before[addrs[2]], got)
	}
}

// createMultiNodeObjects makes the nodes (labelled for one cluster config peering with
// FRR), an advertisement of load-balancer IPs and a pool for the test's namespace.
func createMultiNodeObjects(t *testing.T, nodes []string) {
	t.Helper()
	createSegmentObjects(t, segment{label: multiLabel, namespace: multiNS, frr: multiFRR, nodeNet: "10.71.0",
		pool: kbgpv1.IPBlock{Start: "10.74.0.10", Stop: "10.74.0.20"}}, nodes)
}

// segment are the objects of a multi-node test: nodes at nodeNet.11, .12, ... peering
// with FRR at frr, an advertisement of load-balancer IPs (with attrs) and a pool for
// namespace, all named and labelled label.
type segment struct {
	label, namespace, frr, nodeNet string
	pool                           kbgpv1.IPBlock
	attrs                          *kbgpv1.BGPAttributes
}

func createSegmentObjects(t *testing.T, sg segment, nodes []string) {
	t.Helper()
	ensureNamespace(t)
	if err := server.EnsureNamespace(context.Background(), sg.namespace); err != nil {
		t.Fatal(err)
	}
	sel := &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"advertise": kbgpv1.LabelValue(sg.label)}}
	pc := &kbgpv1.BGPPeerConfig{ObjectMeta: metav1.ObjectMeta{Name: sg.label}, Spec: kbgpv1.BGPPeerConfigSpec{
		Timers:           &kbgpv1.BGPTimers{ConnectRetryTimeSeconds: ptr.To[int32](1), HoldTimeSeconds: ptr.To[int32](9), KeepAliveTimeSeconds: ptr.To[int32](3)},
		GracefulShutdown: &kbgpv1.BGPGracefulShutdown{Enabled: true, WaitSeconds: ptr.To[int32](0)},
		Families:         []kbgpv1.BGPFamily{{AFI: kbgpv1.AFIIPv4, SAFI: kbgpv1.SAFIUnicast, Advertisements: sel}}}}
	cc := segmentClusterConfig(sg.label, sg.frr)
	ad := &kbgpv1.BGPAdvertisement{ObjectMeta: metav1.ObjectMeta{Name: sg.label, Labels: map[string]string{"advertise": sg.label}},
		Spec: kbgpv1.BGPAdvertisementSpec{Advertisements: []kbgpv1.Advertisement{{
			AdvertisementType: kbgpv1.AdvertisementService,
			Service:           &kbgpv1.ServiceAdvertisement{Addresses: []kbgpv1.ServiceAddressType{kbgpv1.ServiceLoadBalancerIP}},
			Attributes:        sg.attrs,
		}}}}
	pool := &kbgpv1.LoadBalancerIPPool{ObjectMeta: metav1.ObjectMeta{Name: sg.label}, Spec: kbgpv1.LoadBalancerIPPoolSpec{
		Blocks:          []kbgpv1.IPBlock{sg.pool},
		ServiceSelector: &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"kbgp.io/service-namespace": kbgpv1.LabelValue(sg.namespace)}},
	}}
	create(t, pc, cc, ad, pool)
	addrs := make([]string, len(nodes))
	for i := range nodes {
		addrs[i] = fmt.Sprintf("%s.%d", sg.nodeNet, 11+i)
	}
	createSegmentNodes(t, sg.label, nodes, addrs)
}

// segmentClusterConfig is the cluster config of the multi-node tests: the nodes
// labelled label=in peer (AS 65001, router ID their InternalIP) with FRR at frrAddr
// (AS 65010) under the peer config named label.
func segmentClusterConfig(label, frrAddr string) *kbgpv1.BGPClusterConfig {
	return &kbgpv1.BGPClusterConfig{ObjectMeta: metav1.ObjectMeta{Name: label}, Spec: kbgpv1.BGPClusterConfigSpec{
		NodeSelector: &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{label: "in"}},
		BGPInstances: []kbgpv1.BGPInstance{{
			BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: 65001, RouterID: "${NODE_IP}"},
			Peers:               []kbgpv1.BGPPeer{{Name: "frr", PeerAddress: frrAddr, PeerASN: 65010, PeerConfigRef: &kbgpv1.PeerConfigReference{Name: label}}},
		}},
	}}
}

// createSegmentNodes creates the Nodes labelled label=in, each with its address on the
// segment as InternalIP (which the router ID template reads).
func createSegmentNodes(t *testing.T, label string, names, addrs []string) {
	t.Helper()
	for i, name := range names {
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{label: "in"}}}
		create(t, node)
		node.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: addrs[i]}}
		if err := server.Client.Status().Update(context.Background(), node); err != nil {
			t.Fatal(err)
		}
	}
}

// tcpReachesANode puts the load-balancer address on every node's loopback with a TCP
// server answering its node's number, as kube-proxy would make the node answer for it,
// and connects from FRR's namespace along the route zebra installed from BGP.
func tcpReachesANode(t *testing.T, client *netlab.Namespace, nodes []*netlab.Namespace, ip string) {
	t.Helper()
	for i, ns := range nodes {
		ns.AddAddr("lo", ip+"/32")
		ns.Start(fmt.Sprintf("echo-%d", i+1), "socat", "TCP-LISTEN:8080,bind="+ip+",fork,reuseaddr", fmt.Sprintf("SYSTEM:echo node-%d", i+1))
		ns.WaitTCPListening(8080, 10*time.Second)
	}
	var out string
	netlab.WaitFor(t, sessionTimeout, 300*time.Millisecond, func() (bool, string) {
		var err error
		out, err = client.ExecTimeout(5*time.Second, "socat", "-T2", "-", "TCP:"+ip+":8080,connect-timeout=2")
		return err == nil && strings.HasPrefix(strings.TrimSpace(out), "node-"), fmt.Sprintf("TCP to %s:8080 from FRR's namespace: %q %v", ip, out, err)
	})
	t.Logf("TCP to %s:8080 answered by %s", ip, strings.TrimSpace(out))
}

// waitPathCommunity waits until FRR's path for prefix from neighbor has (or has not)
// community.
func waitPathCommunity(t *testing.T, f *netlab.FRR, prefix, neighbor, community string, present bool) {
	t.Helper()
	netlab.WaitFor(t, sessionTimeout, 300*time.Millisecond, func() (bool, string) {
		routes, err := f.Routes("ipv4")
		if err != nil {
			return false, err.Error()
		}
		for _, p := range routes[prefix].Paths {
			if p.PeerID == neighbor {
				return slices.Contains(p.Communities, community) == present, fmt.Sprintf("FRR's path from %s: communities %v, want %q present=%v", neighbor, p.Communities, community, present)
			}
		}
		return false, fmt.Sprintf("FRR has no path for %s from %s", prefix, neighbor)
	})
}

// waitNextHops waits until FRR uses exactly the paths of the given neighbors for
// prefix: each valid and best or multipath.
func waitNextHops(t *testing.T, f *netlab.FRR, prefix string, want []string) {
	t.Helper()
	netlab.WaitFor(t, sessionTimeout, 300*time.Millisecond, func() (bool, string) {
		routes, err := f.Routes("ipv4")
		if err != nil {
			return false, err.Error()
		}
		var used []string
		for _, p := range routes[prefix].Paths {
			if p.Valid && (p.Best || p.Multipath) {
				used = append(used, p.PeerID)
			}
		}
		slices.Sort(used)
		return slices.Equal(used, want), fmt.Sprintf("FRR uses %v for %s, want %v", used, prefix, want)
	})
}
