package e2e

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/test/e2e/netlab"
)

// The VRF topology: one node namespace and two router namespaces that both use
// 10.77.0.2, each reached through its own interface of the node (vrfa, vrfb), both
// numbered 10.77.0.1/30. The kernel here has no vrf link type; a session socket bound
// to an interface with SO_BINDTODEVICE is what a VRF-bound one is, and its route lookup
// is restricted to that interface, so the two equal addresses never meet.
const (
	vrfNodeAddr   = "10.77.0.1"
	vrfRouterAddr = "10.77.0.2"
	vrfPodCIDR    = "10.244.7.0/24"
	vrfServiceIP  = "100.64.30.30"
)

type vrfTopology struct {
	lab       *netlab.Lab
	node      *netlab.Namespace
	nodeName  string
	red, blue *netlab.FRR
	agent     *agentProcess
	config    *kbgpv1.BGPNodeConfig
}

func newVRFTopology(t *testing.T) *vrfTopology {
	lab := netlab.New(t)
	tp := &vrfTopology{lab: lab, node: lab.Namespace("node"), nodeName: "e2e-vrf-" + strings.Trim(lab.Prefix(), "-")}
	redNS, blueNS := lab.Namespace("red"), lab.Namespace("blue")
	lab.Link(tp.node, "vrfa", []string{vrfNodeAddr + "/30"}, redNS, "to-node", []string{vrfRouterAddr + "/30"})
	lab.Link(tp.node, "vrfb", []string{vrfNodeAddr + "/30"}, blueNS, "to-node", []string{vrfRouterAddr + "/30"})
	tp.red = netlab.StartFRR(redNS, netlab.FRRConfig{
		ASN: 65077, RouterID: vrfRouterAddr, ListenAddrs: []string{vrfRouterAddr},
		RawConfig: `
neighbor 10.77.0.1 remote-as 65001
neighbor 10.77.0.1 password ` + password + `
neighbor 10.77.0.1 timers connect 1
`,
	})
	tp.blue = netlab.StartFRR(blueNS, netlab.FRRConfig{
		ASN: 65078, RouterID: "10.78.0.2", ListenAddrs: []string{vrfRouterAddr},
		RawConfig: `
neighbor 10.77.0.1 remote-as 65001
neighbor 10.77.0.1 timers connect 1
`,
	})
	tp.createObjects(t)
	tp.agent = startAgent(t, lab, tp.node, tp.nodeName)
	return tp
}

// vrfPeerConfig runs IPv4 only and advertises what label selects.
func vrfPeerConfig(name, label string, secret *string) *kbgpv1.BGPPeerConfig {
	return &kbgpv1.BGPPeerConfig{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: kbgpv1.BGPPeerConfigSpec{
		Timers:        &kbgpv1.BGPTimers{ConnectRetryTimeSeconds: ptr.To[int32](1), HoldTimeSeconds: ptr.To[int32](9), KeepAliveTimeSeconds: ptr.To[int32](3)},
		AuthSecretRef: secret,
		Families: []kbgpv1.BGPFamily{{AFI: kbgpv1.AFIIPv4, SAFI: kbgpv1.SAFIUnicast,
			Advertisements: &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"advertise": kbgpv1.LabelValue(label)}}}},
	}}
}

func vrfNodePeer(name string, asn int64, vrf, peerConfig string) kbgpv1.BGPNodePeer {
	return kbgpv1.BGPNodePeer{BGPPeer: kbgpv1.BGPPeer{Name: name, PeerAddress: vrfRouterAddr, PeerASN: asn, VRF: vrf,
		PeerConfigRef: &kbgpv1.PeerConfigReference{Name: peerConfig}}}
}

// createObjects: red (vrfa, TCP MD5) is sent the node's pod CIDR, blue (vrfb) one
// LoadBalancer address; the instance listens, so each VRF speaker has a listener
// bound to its device as well as its dialling sockets.
func (tp *vrfTopology) createObjects(t *testing.T) {
	ensureNamespace(t)
	n := tp.nodeName
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: n + "-auth", Namespace: agentNamespace}, Data: map[string][]byte{"password": []byte(password)}}
	red, blue := vrfPeerConfig(n+"-red", n+"-red", ptr.To(secret.Name)), vrfPeerConfig(n+"-blue", n+"-blue", nil)
	tp.config = &kbgpv1.BGPNodeConfig{ObjectMeta: metav1.ObjectMeta{Name: n}, Spec: kbgpv1.BGPNodeConfigSpec{BGPInstances: []kbgpv1.BGPNodeInstance{{
		BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: 65001, RouterID: routerID, LocalPort: ptr.To[int32](179)},
		Peers:               []kbgpv1.BGPNodePeer{vrfNodePeer("red", 65077, "vrfa", red.Name), vrfNodePeer("blue", 65078, "vrfb", blue.Name)},
	}}}}
	pods := &kbgpv1.BGPAdvertisement{
		ObjectMeta: metav1.ObjectMeta{Name: n + "-pods", Labels: map[string]string{"advertise": n + "-red"}},
		Spec:       kbgpv1.BGPAdvertisementSpec{Advertisements: []kbgpv1.Advertisement{{AdvertisementType: kbgpv1.AdvertisementPodCIDR}}},
	}
	svcName := n + "-lb"
	lb := &kbgpv1.BGPAdvertisement{
		ObjectMeta: metav1.ObjectMeta{Name: n + "-lb", Labels: map[string]string{"advertise": n + "-blue"}},
		Spec: kbgpv1.BGPAdvertisementSpec{Advertisements: []kbgpv1.Advertisement{{
			AdvertisementType: kbgpv1.AdvertisementService,
			Service:           &kbgpv1.ServiceAdvertisement{Addresses: []kbgpv1.ServiceAddressType{kbgpv1.ServiceLoadBalancerIP}, LoadBalancerIPPrefixes: []kbgpv1.CIDR{kbgpv1.CIDR(vrfServiceIP + "/32")}},
			Selector:          &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"kbgp.io/service-name": kbgpv1.LabelValue(svcName)}},
		}}},
	}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n}, Spec: corev1.NodeSpec{PodCIDRs: []string{vrfPodCIDR}}}
	create(t, node, secret, red, blue, pods, lb, tp.config)
	loadBalancer(t, svcName, vrfServiceIP, corev1.ServiceExternalTrafficPolicyCluster)
}

// routes is the set of IPv4 prefixes an FRR router received.
func routes(t *testing.T, f *netlab.FRR) []string {
	t.Helper()
	r, err := f.Routes("ipv4")
	if err != nil {
		t.Fatal(err)
	}
	return slices.Sorted(maps.Keys(r))
}

// agentMetrics reads the agent's /metrics from inside its namespace.
func (a *agentProcess) metrics(t *testing.T) string {
	t.Helper()
	out, err := a.ns.ExecTimeout(5*time.Second, "bash", "-c",
		`exec 3<>/dev/tcp/127.0.0.1/9080 && printf 'GET /metrics HTTP/1.0\r\n\r\n' >&3 && cat <&3`)
	if err != nil {
		t.Fatalf("agent metrics: %v: %s", err, out)
	}
	return out
}

// hasSample reports whether a metrics page has a sample of name with every one of
// labels (name="value" strings) and value.
func hasSample(page, name, value string, labels ...string) bool {
	for _, l := range strings.Split(page, "\n") {
		if !strings.HasPrefix(l, name+"{") || !strings.HasSuffix(l, "} "+value) {
			continue
		}
		if !slices.ContainsFunc(labels, func(want string) bool { return !strings.Contains(l, want) }) {
			return true
		}
	}
	return false
}

// pluginRows parses `kubectl bgp peers` into peer name → column → cell.
func pluginRows(out string) map[string]map[string]string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	header := strings.Fields(lines[0])
	rows := map[string]map[string]string{}
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		if len(f) != len(header) {
			continue
		}
		row := map[string]string{}
		for i, h := range header {
			row[h] = f[i]
		}
		rows[row["PEER"]] = row
	}
	return rows
}

func (tp *vrfTopology) statusPeers(t *testing.T) map[string]kbgpv1.BGPNodePeerStatus {
	t.Helper()
	out := map[string]kbgpv1.BGPNodePeerStatus{}
	for _, inst := range nodeStatus(t, tp.nodeName).BGPInstances {
		for _, p := range inst.Peers {
			out[p.Name] = p
		}
	}
	return out
}

// TestVRFPeersWithOneAddress walks the VRF issue's scenarios on one topology: two
// sessions to one address in two VRFs, a peer in a VRF that does not exist yet, the
// removal of one VRF peer, and the missing VRF appearing.
func TestVRFPeersWithOneAddress(t *testing.T) {
	tp := newVRFTopology(t)

	t.Run("both sessions Established at once, each router gets exactly its prefixes", func(t *testing.T) {
		tp.red.WaitNeighborState(t, vrfNodeAddr, "Established", sessionTimeout)
		tp.blue.WaitNeighborState(t, vrfNodeAddr, "Established", sessionTimeout)
		netlab.WaitFor(t, sessionTimeout, 500*time.Millisecond, func() (bool, string) {
			r, b := routes(t, tp.red), routes(t, tp.blue)
			return slices.Equal(r, []string{vrfPodCIDR}) && slices.Equal(b, []string{vrfServiceIP + "/32"}),
				fmt.Sprintf("red has %v (want [%s]), blue has %v (want [%s/32])", r, vrfPodCIDR, b, vrfServiceIP)
		})
		rn, err := tp.red.Neighbor(vrfNodeAddr)
		if err != nil {
			t.Fatal(err)
		}
		bn, err := tp.blue.Neighbor(vrfNodeAddr)
		if err != nil {
			t.Fatal(err)
		}
		if rn.State != "Established" || bn.State != "Established" {
			t.Fatalf("not both Established at once: red %s, blue %s", rn.State, bn.State)
		}
		// ss shows a socket bound to a device as ADDR%DEV: every session socket of the
		// node, dialled or accepted, must be bound to its VRF device.
		out := tp.node.MustExec("ss", "-tnH", "state", "established")
		for _, dev := range []string{"vrfa", "vrfb"} {
			if !strings.Contains(out, vrfNodeAddr+"%"+dev+":") {
				t.Errorf("no established socket bound to %s in the node namespace:\n%s", dev, out)
			}
		}
		if rn.RemoteRouterID != routerID || bn.RemoteRouterID != routerID {
			t.Errorf("router IDs seen: red %s, blue %s; want the instance's %s in both VRFs", rn.RemoteRouterID, bn.RemoteRouterID, routerID)
		}
	})

	t.Run("status, metrics and kubectl bgp peers tell the two apart", func(t *testing.T) {
		netlab.WaitFor(t, sessionTimeout, time.Second, func() (bool, string) {
			st := tp.statusPeers(t)
			r, b := st["red"], st["blue"]
			return r.VRF == "vrfa" && b.VRF == "vrfb" && r.PeerAddress == b.PeerAddress &&
				r.PeeringState == kbgpv1.PeeringStateEstablished && b.PeeringState == kbgpv1.PeeringStateEstablished &&
				r.RoutesAdvertised == 1 && b.RoutesAdvertised == 1, fmt.Sprintf("status peers %+v", st)
		})
		netlab.WaitFor(t, sessionTimeout, time.Second, func() (bool, string) {
			out := kubectlBGP(t, "peers", "--node", tp.nodeName)
			rows := pluginRows(out)
			r, b := rows["red"], rows["blue"]
			return r["VRF"] == "vrfa" && b["VRF"] == "vrfb" && r["ADDRESS"] == vrfRouterAddr && b["ADDRESS"] == vrfRouterAddr &&
				r["STATE"] == "Established" && b["STATE"] == "Established", "kubectl bgp peers:\n" + out
		})
		netlab.WaitFor(t, sessionTimeout, time.Second, func() (bool, string) {
			page := tp.agent.metrics(t)
			ok := hasSample(page, "kbgp_session_state", "1", `peer="red"`, `vrf="vrfa"`, `state="Established"`) &&
				hasSample(page, "kbgp_session_state", "1", `peer="blue"`, `vrf="vrfb"`, `state="Established"`) &&
				hasSample(page, "kbgp_routes_advertised", "1", `peer="red"`, `afi="ipv4"`) &&
				hasSample(page, "kbgp_routes_advertised", "1", `peer="blue"`, `afi="ipv4"`)
			return ok, "metrics:\n" + grepLines(page, "kbgp_session_state{", "kbgp_routes_advertised{")
		})
	})

	t.Run("a peer in a VRF device that does not exist fails alone, with status and event", func(t *testing.T) {
		redDrops, blueDrops := dropped(t, tp.red, vrfNodeAddr), dropped(t, tp.blue, vrfNodeAddr)
		update(t, tp.config, func(nc *kbgpv1.BGPNodeConfig) {
			nc.Spec.BGPInstances[0].Peers = append(nc.Spec.BGPInstances[0].Peers, vrfNodePeer("ghost", 65078, "vrfc", tp.nodeName+"-blue"))
		})
		netlab.WaitFor(t, sessionTimeout, time.Second, func() (bool, string) {
			st := nodeStatus(t, tp.nodeName)
			found := slices.ContainsFunc(st.FailedResources, func(f kbgpv1.FailedResource) bool { return f.Kind == "VRF" && f.Name == "vrfc" })
			return found && tp.statusPeers(t)["ghost"].PeeringState == kbgpv1.PeeringStateIdle, fmt.Sprintf("failedResources %+v", st.FailedResources)
		})
		netlab.WaitFor(t, sessionTimeout, time.Second, func() (bool, string) {
			events := nodeEvents(t, tp.nodeName)
			return slices.ContainsFunc(events, func(e string) bool {
				return strings.HasPrefix(e, `VRFNotFound: VRF device "vrfc" does not exist on this node; not started: peer ghost of instance 65001`)
			}), fmt.Sprintf("events %q", events)
		})
		time.Sleep(3 * time.Second)
		if r, b := dropped(t, tp.red, vrfNodeAddr), dropped(t, tp.blue, vrfNodeAddr); r != redDrops || b != blueDrops {
			t.Fatalf("the failing peer touched the others: connectionsDropped red %d -> %d, blue %d -> %d", redDrops, r, blueDrops, b)
		}
	})

	t.Run("removing one VRF peer leaves the other's session up", func(t *testing.T) {
		redDrops := dropped(t, tp.red, vrfNodeAddr)
		update(t, tp.config, func(nc *kbgpv1.BGPNodeConfig) {
			nc.Spec.BGPInstances[0].Peers = slices.DeleteFunc(nc.Spec.BGPInstances[0].Peers, func(p kbgpv1.BGPNodePeer) bool { return p.Name == "blue" })
		})
		netlab.WaitFor(t, sessionTimeout, 500*time.Millisecond, func() (bool, string) {
			n, err := tp.blue.Neighbor(vrfNodeAddr)
			return err == nil && n.State != "Established", fmt.Sprintf("blue: %s, %v", n.State, err)
		})
		time.Sleep(3 * time.Second)
		n, err := tp.red.Neighbor(vrfNodeAddr)
		if err != nil {
			t.Fatal(err)
		}
		if n.State != "Established" || n.ConnectionsDropped != redDrops {
			t.Fatalf("red after blue's removal: %s, connectionsDropped %d -> %d", n.State, redDrops, n.ConnectionsDropped)
		}
		if _, ok := tp.statusPeers(t)["blue"]; ok {
			t.Errorf("status still lists the removed peer blue")
		}
	})

	t.Run("the missing VRF device appears: its peer comes up without any API change", func(t *testing.T) {
		redDrops := dropped(t, tp.red, vrfNodeAddr)
		// The interface to blue's router becomes vrfc, the device ghost waits for.
		tp.node.SetLinkUp("vrfb", false)
		tp.node.MustExec("ip", "link", "set", "dev", "vrfb", "name", "vrfc")
		tp.node.SetLinkUp("vrfc", true)
		tp.blue.WaitNeighborState(t, vrfNodeAddr, "Established", sessionTimeout)
		netlab.WaitFor(t, sessionTimeout, time.Second, func() (bool, string) {
			st := nodeStatus(t, tp.nodeName)
			gone := !slices.ContainsFunc(st.FailedResources, func(f kbgpv1.FailedResource) bool { return f.Kind == "VRF" })
			return gone && tp.statusPeers(t)["ghost"].PeeringState == kbgpv1.PeeringStateEstablished && isReady(st),
				fmt.Sprintf("failedResources %+v, ghost %+v", st.FailedResources, tp.statusPeers(t)["ghost"])
		})
		netlab.WaitFor(t, sessionTimeout, 500*time.Millisecond, func() (bool, string) {
			b := routes(t, tp.blue)
			return slices.Equal(b, []string{vrfServiceIP + "/32"}), fmt.Sprintf("blue has %v via ghost", b)
		})
		if got := dropped(t, tp.red, vrfNodeAddr); got != redDrops {
			t.Fatalf("red connectionsDropped %d -> %d", redDrops, got)
		}
	})
}

// grepLines keeps the lines of s that start with one of prefixes.
func grepLines(s string, prefixes ...string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(l, p) }) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
