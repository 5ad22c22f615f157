package e2e

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/frr"
	"kbgp.io/kbgp/test/e2e/netlab"
)

const (
	sessionTimeout = 45 * time.Second
	// routerID is what the node's kbgp.io/router-id annotation says.
	routerID = "10.99.0.1"
	podCIDR4 = "10.244.1.0/24"
	podCIDR6 = "2001:db8:244:1::/64"
	password = "kbgp-e2e-md5"
)

// peeringTopology is one node namespace with the agent and four router namespaces:
//
//	node ─ frr     198.51.100.0/30, 2001:db8:1::/64  (IPv4 session with MD5 + IPv6 session)
//	node ─ bird    198.51.100.4/30, 198.51.100.12/30 (eBGP session + an iBGP session)
//	node ─ gobgpd  198.51.100.8/30
//	node ─ mid ─ frr-mh   203.0.113.0/30, 203.0.113.4/30 (eBGP multihop, mid forwards)
type peeringTopology struct {
	lab          *netlab.Lab
	node         *netlab.Namespace
	frr, frrMH   *netlab.FRR
	bird         *netlab.BIRD
	gobgp        *netlab.GoBGPD
	nodeName     string
	agent        *agentProcess
	nodeConfig   *kbgpv1.BGPNodeConfig
	secret       *corev1.Secret
	fastConfig   *kbgpv1.BGPPeerConfig
	plainConfig  *kbgpv1.BGPPeerConfig
	v6Config     *kbgpv1.BGPPeerConfig
	hopConfig    *kbgpv1.BGPPeerConfig
	missingRefPC *kbgpv1.BGPPeerConfig
}

func newPeeringTopology(t *testing.T) *peeringTopology {
	lab := netlab.New(t)
	tp := &peeringTopology{lab: lab, node: lab.Namespace("node"), nodeName: "e2e-" + strings.Trim(lab.Prefix(), "-")}
	frrNS, birdNS, gobgpNS, mid, mhNS := lab.Namespace("frr"), lab.Namespace("bird"), lab.Namespace("gobgp"), lab.Namespace("mid"), lab.Namespace("frrmh")
	lab.Link(tp.node, "to-frr", []string{"198.51.100.1/30", "2001:db8:1::1/64"}, frrNS, "to-node", []string{"198.51.100.2/30", "2001:db8:1::2/64"})
	lab.Link(tp.node, "to-bird", []string{"198.51.100.5/30"}, birdNS, "to-node", []string{"198.51.100.6/30"})
	lab.Link(tp.node, "to-bird-ibgp", []string{"198.51.100.13/30"}, birdNS, "to-node-ibgp", []string{"198.51.100.14/30"})
	lab.Link(tp.node, "to-gobgp", []string{"198.51.100.9/30"}, gobgpNS, "to-node", []string{"198.51.100.10/30"})
	lab.Link(tp.node, "to-mid", []string{"203.0.113.1/30"}, mid, "to-node", []string{"203.0.113.2/30"})
	lab.Link(mid, "to-mh", []string{"203.0.113.5/30"}, mhNS, "to-mid", []string{"203.0.113.6/30"})
	mid.SetForwarding(true)
	tp.node.AddRoute("203.0.113.4/30", "203.0.113.2")
	mhNS.AddRoute("203.0.113.0/30", "203.0.113.5")

	tp.frr = netlab.StartFRR(frrNS, netlab.FRRConfig{
		ASN: 65010, RouterID: "198.51.100.2", ListenAddrs: []string{"198.51.100.2", "2001:db8:1::2"},
		RawConfig: `
bgp graceful-restart
neighbor 198.51.100.1 remote-as 65001
neighbor 198.51.100.1 password ` + password + `
neighbor 198.51.100.1 timers connect 1
neighbor 2001:db8:1::1 remote-as 65001
neighbor 2001:db8:1::1 timers connect 1
address-family ipv6 unicast
 neighbor 2001:db8:1::1 activate
exit-address-family
`,
	})
	tp.frrMH = netlab.StartFRR(mhNS, netlab.FRRConfig{
		ASN: 65040, RouterID: "203.0.113.6", ListenAddrs: []string{"203.0.113.6"},
		RawConfig: `
neighbor 203.0.113.1 remote-as 65001
neighbor 203.0.113.1 ebgp-multihop 2
neighbor 203.0.113.1 timers connect 1
`,
	})
	tp.bird = netlab.StartBIRD(birdNS, `
router id 198.51.100.6;
protocol device {}
protocol bgp kbgp {
	local 198.51.100.6 as 65020;
	neighbor 198.51.100.5 as 65001;
	connect retry time 1;
	ipv4 { import all; export none; };
}
# The iBGP session (AS 65001 like the node) exists only while the per-peer attributes
# scenario configures its peer; its routes go to their own table.
ipv4 table ibgp4;
protocol bgp kbgp_ibgp {
	local 198.51.100.14 as 65001;
	neighbor 198.51.100.13 as 65001;
	direct;
	connect retry time 1;
	ipv4 { table ibgp4; import all; export none; };
}
`)
	tp.gobgp = netlab.StartGoBGP(gobgpNS, `
[global.config]
  as = 65030
  router-id = "198.51.100.10"
  local-address-list = ["198.51.100.10"]
[[neighbors]]
  [neighbors.config]
    neighbor-address = "198.51.100.9"
    peer-as = 65001
  [neighbors.timers.config]
    connect-retry = 1
  [[neighbors.afi-safis]]
    [neighbors.afi-safis.config]
      afi-safi-name = "ipv4-unicast"
`)
	tp.createObjects(t)
	tp.agent = startAgent(t, lab, tp.node, tp.nodeName)
	return tp
}

func families() []kbgpv1.BGPFamily {
	sel := &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"advertise": "e2e"}}
	return []kbgpv1.BGPFamily{
		{AFI: kbgpv1.AFIIPv4, SAFI: kbgpv1.SAFIUnicast, Advertisements: sel},
		{AFI: kbgpv1.AFIIPv6, SAFI: kbgpv1.SAFIUnicast, Advertisements: sel},
	}
}

func (tp *peeringTopology) createObjects(t *testing.T) {
	ensureNamespace(t)
	n := tp.nodeName
	tp.secret = &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: n + "-auth", Namespace: agentNamespace}, Data: map[string][]byte{"password": []byte(password)}}
	timers := &kbgpv1.BGPTimers{ConnectRetryTimeSeconds: ptr.To[int32](1), HoldTimeSeconds: ptr.To[int32](9), KeepAliveTimeSeconds: ptr.To[int32](3)}
	tp.fastConfig = &kbgpv1.BGPPeerConfig{ObjectMeta: metav1.ObjectMeta{Name: n + "-fast"}, Spec: kbgpv1.BGPPeerConfigSpec{
		Timers: timers, GracefulRestart: &kbgpv1.BGPGracefulRestart{Enabled: true, RestartTimeSeconds: ptr.To[int32](120)},
		AuthSecretRef: ptr.To(tp.secret.Name), Families: families(),
	}}
	tp.plainConfig = &kbgpv1.BGPPeerConfig{ObjectMeta: metav1.ObjectMeta{Name: n + "-plain"}, Spec: kbgpv1.BGPPeerConfigSpec{
		Timers: timers.DeepCopy(), Families: families(),
	}}
	// The IPv6 session carries IPv6 only: with both families FRR would also learn the
	// IPv4 pod CIDR over it and might prefer that path (with an IPv6 next hop).
	tp.v6Config = &kbgpv1.BGPPeerConfig{ObjectMeta: metav1.ObjectMeta{Name: n + "-v6"}, Spec: kbgpv1.BGPPeerConfigSpec{
		Timers: timers.DeepCopy(), Families: families()[1:],
	}}
	tp.hopConfig = &kbgpv1.BGPPeerConfig{ObjectMeta: metav1.ObjectMeta{Name: n + "-hop"}, Spec: kbgpv1.BGPPeerConfigSpec{
		Timers: timers.DeepCopy(), EBGPMultihop: ptr.To[int32](2), Families: families(),
	}}
	tp.missingRefPC = &kbgpv1.BGPPeerConfig{ObjectMeta: metav1.ObjectMeta{Name: n + "-nosecret"}, Spec: kbgpv1.BGPPeerConfigSpec{
		Timers: timers.DeepCopy(), AuthSecretRef: ptr.To(n + "-missing"),
	}}
	peer := func(name, addr string, asn int64, pc *kbgpv1.BGPPeerConfig) kbgpv1.BGPNodePeer {
		return kbgpv1.BGPNodePeer{BGPPeer: kbgpv1.BGPPeer{Name: name, PeerAddress: addr, PeerASN: asn, PeerConfigRef: &kbgpv1.PeerConfigReference{Name: pc.Name}}}
	}
	tp.nodeConfig = &kbgpv1.BGPNodeConfig{ObjectMeta: metav1.ObjectMeta{Name: n}, Spec: kbgpv1.BGPNodeConfigSpec{BGPInstances: []kbgpv1.BGPNodeInstance{{
		BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: 65001, RouterID: "${node.annotations['kbgp.io/router-id']}"},
		Peers: []kbgpv1.BGPNodePeer{
			peer("frr-v4", "198.51.100.2", 65010, tp.fastConfig),
			peer("frr-v6", "2001:db8:1::2", 65010, tp.v6Config),
			peer("bird", "198.51.100.6", 65020, tp.plainConfig),
			peer("gobgpd", "198.51.100.10", 65030, tp.plainConfig),
			peer("frr-multihop", "203.0.113.6", 65040, tp.hopConfig),
		},
	}}}}
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: n, Annotations: map[string]string{"kbgp.io/router-id": routerID}},
		Spec:       corev1.NodeSpec{PodCIDRs: []string{podCIDR4, podCIDR6}},
	}
	ad := &kbgpv1.BGPAdvertisement{
		ObjectMeta: metav1.ObjectMeta{Name: n + "-pods", Labels: map[string]string{"advertise": "e2e"}},
		Spec: kbgpv1.BGPAdvertisementSpec{Advertisements: []kbgpv1.Advertisement{{
			AdvertisementType: kbgpv1.AdvertisementPodCIDR,
			Attributes:        &kbgpv1.BGPAttributes{Communities: &kbgpv1.BGPCommunities{Standard: []kbgpv1.StandardCommunity{"65001:100"}}},
		}}},
	}
	create(t, node, tp.secret, tp.fastConfig, tp.plainConfig, tp.v6Config, tp.hopConfig, tp.missingRefPC, ad, tp.nodeConfig)
	// The router ID comes from the annotation template, not from this InternalIP.
	node.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "198.51.100.1"}}
	if err := server.Client.Status().Update(t.Context(), node); err != nil {
		t.Fatal(err)
	}
}

// dropped is FRR's connectionsDropped for a neighbor.
func dropped(t *testing.T, f *netlab.FRR, addr string) int {
	t.Helper()
	n, err := f.Neighbor(addr)
	if err != nil {
		t.Fatal(err)
	}
	return n.ConnectionsDropped
}

func (tp *peeringTopology) waitAllEstablished(t *testing.T) {
	t.Helper()
	tp.frr.WaitNeighborState(t, "198.51.100.1", "Established", sessionTimeout)
	tp.frr.WaitNeighborState(t, "2001:db8:1::1", "Established", sessionTimeout)
	tp.frrMH.WaitNeighborState(t, "203.0.113.1", "Established", sessionTimeout)
	tp.bird.WaitEstablished(t, "kbgp", sessionTimeout)
	tp.gobgp.WaitEstablished(t, "198.51.100.9", sessionTimeout)
}

// TestPeeringWithRealRouters is one topology walked through the scenarios of the agent
// issue, in an order where each step leaves the sessions up for the next; the last step
// stops the agent.
func TestPeeringWithRealRouters(t *testing.T) {
	independent(t)
	tp := newPeeringTopology(t)
	tp.waitAllEstablished(t)

	t.Run("routers see the node's router ID, timers and pod CIDRs", func(t *testing.T) {
		n, err := tp.frr.Neighbor("198.51.100.1")
		if err != nil {
			t.Fatal(err)
		}
		if n.RemoteRouterID != routerID {
			t.Errorf("FRR sees router ID %q, want %s from the node's annotation", n.RemoteRouterID, routerID)
		}
		if n.HoldTimeMsecs != 9000 || n.KeepaliveMsecs != 3000 {
			t.Errorf("FRR negotiated hold %d ms keepalive %d ms, want 9000/3000", n.HoldTimeMsecs, n.KeepaliveMsecs)
		}
		if n.Capabilities.GracefulRestart == "" || n.Capabilities.GracefulRestart == "advertised" {
			t.Errorf("graceful restart capability %q: kbgp did not advertise it", n.Capabilities.GracefulRestart)
		}
		r := tp.frr.WaitRoute(t, "ipv4", podCIDR4, sessionTimeout, func(r frr.Route) bool { return r.HasCommunity("65001:100") })
		if r.Nexthop != "198.51.100.1" {
			t.Errorf("pod CIDR next hop %q, want 198.51.100.1", r.Nexthop)
		}
		tp.frr.WaitRoute(t, "ipv6", podCIDR6, sessionTimeout, func(frr.Route) bool { return true })
		tp.frrMH.WaitRoute(t, "ipv4", podCIDR4, sessionTimeout, func(frr.Route) bool { return true })
		netlab.WaitFor(t, sessionTimeout, 500*time.Millisecond, func() (bool, string) {
			routes, err := tp.bird.Routes("master4")
			_, ok := routes[podCIDR4]
			return err == nil && ok, fmt.Sprintf("BIRD routes %v, %v", routes, err)
		})
		netlab.WaitFor(t, sessionTimeout, 500*time.Millisecond, func() (bool, string) {
			routes, err := tp.gobgp.Routes("ipv4")
			_, ok := routes[podCIDR4]
			return err == nil && ok, fmt.Sprintf("gobgpd routes %v, %v", routes, err)
		})
		netlab.WaitFor(t, sessionTimeout, 500*time.Millisecond, func() (bool, string) {
			st := peerStates(t, tp.nodeName)
			for _, name := range []string{"frr-v4", "frr-v6", "bird", "gobgpd", "frr-multihop"} {
				if st[name] != kbgpv1.PeeringStateEstablished {
					return false, fmt.Sprintf("status peers %v", st)
				}
			}
			return true, ""
		})
	})

	t.Run("per-peer attributes: FRR and BIRD get one prefix with different communities, iBGP its local preference, a peer selecting nothing nothing", tp.peerAttributesScenario)

	t.Run("MD5: a wrong password keeps the session down, the right one brings it back", func(t *testing.T) {
		update(t, tp.secret, func(s *corev1.Secret) { s.Data["password"] = []byte("wrong-password") })
		netlab.WaitFor(t, sessionTimeout, 500*time.Millisecond, func() (bool, string) {
			n, err := tp.frr.Neighbor("198.51.100.1")
			return err == nil && n.State != "Established", fmt.Sprintf("state %s, %v", n.State, err)
		})
		time.Sleep(5 * time.Second)
		if n, _ := tp.frr.Neighbor("198.51.100.1"); n.State == "Established" {
			t.Fatalf("session Established with a wrong MD5 password")
		}
		update(t, tp.secret, func(s *corev1.Secret) { s.Data["password"] = []byte(password) })
		tp.frr.WaitNeighborState(t, "198.51.100.1", "Established", sessionTimeout)
	})

	t.Run("MD5: a peer whose Secret is missing is not started and status says why", func(t *testing.T) {
		update(t, tp.nodeConfig, func(nc *kbgpv1.BGPNodeConfig) {
			nc.Spec.BGPInstances[0].Peers = append(nc.Spec.BGPInstances[0].Peers, kbgpv1.BGPNodePeer{BGPPeer: kbgpv1.BGPPeer{
				Name: "no-secret", PeerAddress: "198.51.100.3", PeerASN: 65010,
				PeerConfigRef: &kbgpv1.PeerConfigReference{Name: tp.missingRefPC.Name},
			}})
		})
		netlab.WaitFor(t, sessionTimeout, 500*time.Millisecond, func() (bool, string) {
			st := nodeStatus(t, tp.nodeName)
			for _, f := range st.FailedResources {
				if f.Kind == "Secret" && f.Name == tp.nodeName+"-missing" {
					return peerStates(t, tp.nodeName)["no-secret"] == kbgpv1.PeeringStateIdle, ""
				}
			}
			return false, fmt.Sprintf("failedResources %v", st.FailedResources)
		})
		update(t, tp.nodeConfig, func(nc *kbgpv1.BGPNodeConfig) {
			nc.Spec.BGPInstances[0].Peers = nc.Spec.BGPInstances[0].Peers[:5]
		})
	})

	t.Run("ten unrelated edits keep every session; a hold time change resets one", func(t *testing.T) {
		tp.waitAllEstablished(t)
		before := dropped(t, tp.frr, "198.51.100.1")
		beforeV6 := dropped(t, tp.frr, "2001:db8:1::1")
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: tp.nodeName}}
		edits := []func(){
			func() { update(t, n, func(n *corev1.Node) { n.Labels = map[string]string{"edit": "1"} }) },
			func() { update(t, n, func(n *corev1.Node) { n.Labels["edit"] = "2" }) },
			// The router-ID annotation changes: the ID is locked, nothing moves.
			func() { update(t, n, func(n *corev1.Node) { n.Annotations["kbgp.io/router-id"] = "10.99.0.2" }) },
			func() {
				update(t, tp.nodeConfig, func(nc *kbgpv1.BGPNodeConfig) { nc.Labels = map[string]string{"edit": "3"} })
			},
			func() {
				create(t, &kbgpv1.BGPAdvertisement{ObjectMeta: metav1.ObjectMeta{Name: tp.nodeName + "-other", Labels: map[string]string{"advertise": "other"}},
					Spec: kbgpv1.BGPAdvertisementSpec{Advertisements: []kbgpv1.Advertisement{{AdvertisementType: kbgpv1.AdvertisementPodCIDR}}}})
			},
			func() {
				create(t, &kbgpv1.BGPPeerConfig{ObjectMeta: metav1.ObjectMeta{Name: tp.nodeName + "-unused"}})
			},
			func() {
				update(t, tp.hopConfig, func(pc *kbgpv1.BGPPeerConfig) { pc.Spec.Timers.ConnectRetryTimeSeconds = ptr.To[int32](2) })
			},
			func() {
				update(t, tp.nodeConfig, func(nc *kbgpv1.BGPNodeConfig) {
					nc.Spec.BGPInstances[0].Peers = append(nc.Spec.BGPInstances[0].Peers, kbgpv1.BGPNodePeer{BGPPeer: kbgpv1.BGPPeer{
						Name: "nobody", PeerAddress: "198.51.100.200", PeerASN: 65099}})
				})
			},
			func() {
				update(t, tp.nodeConfig, func(nc *kbgpv1.BGPNodeConfig) {
					nc.Spec.BGPInstances[0].Peers = nc.Spec.BGPInstances[0].Peers[:5]
				})
			},
			func() {
				create(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: tp.nodeName + "-unrelated", Namespace: agentNamespace}})
			},
		}
		for _, edit := range edits {
			edit()
			time.Sleep(300 * time.Millisecond)
		}
		time.Sleep(5 * time.Second)
		if got := dropped(t, tp.frr, "198.51.100.1"); got != before {
			t.Fatalf("ten unrelated edits: connectionsDropped %d -> %d", before, got)
		}
		if got := dropped(t, tp.frr, "2001:db8:1::1"); got != beforeV6 {
			t.Fatalf("ten unrelated edits: IPv6 connectionsDropped %d -> %d", beforeV6, got)
		}

		// Negative control: the hold time is in the OPEN message.
		update(t, tp.fastConfig, func(pc *kbgpv1.BGPPeerConfig) {
			pc.Spec.Timers.HoldTimeSeconds = ptr.To[int32](12)
		})
		netlab.WaitFor(t, sessionTimeout, 500*time.Millisecond, func() (bool, string) {
			got := dropped(t, tp.frr, "198.51.100.1")
			return got == before+1, fmt.Sprintf("connectionsDropped %d, want %d", got, before+1)
		})
		n4 := tp.frr.WaitNeighborState(t, "198.51.100.1", "Established", sessionTimeout)
		if n4.HoldTimeMsecs != 12000 {
			t.Fatalf("hold time after the change: %d ms, want 12000", n4.HoldTimeMsecs)
		}
		if got := dropped(t, tp.frr, "2001:db8:1::1"); got != beforeV6 {
			t.Fatalf("the IPv6 session (other peer config) was reset by frr-v4's hold time change")
		}
	})

	t.Run("API server unreachable for 60 s: no reset, liveness stays healthy", func(t *testing.T) {
		before := dropped(t, tp.frr, "198.51.100.1")
		tp.agent.relay.Pause()
		deadline := time.Now().Add(60 * time.Second)
		for time.Now().Before(deadline) {
			if ok, out := tp.agent.healthy(); !ok {
				t.Fatalf("liveness failed while the API server was unreachable: %s", out)
			}
			time.Sleep(5 * time.Second)
		}
		tp.agent.relay.Resume()
		if got := dropped(t, tp.frr, "198.51.100.1"); got != before {
			t.Fatalf("connectionsDropped %d -> %d while the API server was unreachable", before, got)
		}
		tp.waitAllEstablished(t)
	})

	t.Run("FRR shuts a session: status, PeerDown event and kubectl bgp peers follow FRR", func(t *testing.T) {
		tp.waitAllEstablished(t)
		netlab.WaitFor(t, sessionTimeout, time.Second, func() (bool, string) {
			out := kubectlBGP(t, "peers", "--node", tp.nodeName)
			states := pluginStates(t, out)
			for _, p := range []string{"frr-v4", "frr-v6", "bird", "gobgpd", "frr-multihop"} {
				if states[p] != "Established" {
					return false, "kubectl bgp peers disagrees with the routers (all Established):\n" + out
				}
			}
			return true, ""
		})

		// An administrative shutdown at FRR sends a Cease NOTIFICATION (6/2).
		tp.frr.MustConfigure("router bgp 65010", "neighbor 198.51.100.1 shutdown")
		n := tp.frr.WaitNeighborState(t, "198.51.100.1", "Idle", sessionTimeout)
		netlab.WaitFor(t, sessionTimeout, time.Second, func() (bool, string) {
			out := kubectlBGP(t, "peers", "--node", tp.nodeName)
			st := pluginStates(t, out)
			return st["frr-v4"] != "Established" && st["frr-v6"] == "Established",
				"kubectl bgp peers while FRR (" + n.State + ") has the IPv4 session shut:\n" + out
		})
		// A peer that is down is not a configuration failure.
		if st := nodeStatus(t, tp.nodeName); !isReady(st) {
			t.Errorf("Ready is not True while a peer is down: %+v", st.Conditions)
		}
		netlab.WaitFor(t, sessionTimeout, time.Second, func() (bool, string) {
			events := nodeEvents(t, tp.nodeName)
			for _, e := range events {
				if strings.HasPrefix(e, "PeerDown: peer frr-v4 ") && strings.Contains(e, "code 6(cease) subcode 2(administrative shutdown)") {
					return true, ""
				}
			}
			return false, fmt.Sprintf("no PeerDown event with the NOTIFICATION for frr-v4: %q", events)
		})

		tp.frr.MustConfigure("router bgp 65010", "no neighbor 198.51.100.1 shutdown")
		tp.waitAllEstablished(t)
	})

	t.Run("Service addresses: LB IP with community, eTP=Local follows endpoints, withdrawn on delete", tp.servicesScenario)
	t.Run("aggregation: FRR holds the aggregate of eTP=Cluster LB IPs, not their /32s, and the /32 of an eTP=Local one", tp.aggregationScenario)
	t.Run("ADD-PATH: negotiated with FRR, not with BIRD, per the node status", tp.addPathsScenario)
	t.Run("only what is allowed: a forged pseudo-label and an external IP outside the allowed ranges are not announced", tp.allowedOnlyScenario)
	t.Run("owned addresses: another namespace's external IP, the kubernetes cluster IP, the node's address, a pod IP, another node's address and pod IP, a free Service-CIDR address and 64 external IPs are not announced and are reported", tp.ownedAddressesScenario)

	t.Run("SIGTERM with graceful restart: no NOTIFICATION, FRR keeps the routes as stale", func(t *testing.T) {
		n, err := tp.frr.Neighbor("198.51.100.1")
		if err != nil {
			t.Fatal(err)
		}
		notifications := n.MessageStats.NotificationsRecv
		if err := tp.agent.proc.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if !tp.agent.proc.Wait(20 * time.Second) {
			t.Fatal("agent did not exit within 20 s of SIGTERM")
		}
		if err := tp.agent.proc.Err(); err != nil {
			t.Errorf("agent exit: %v\n%s", err, tail(tp.agent.proc.Log()))
		}
		r := tp.frr.WaitRoute(t, "ipv4", podCIDR4, sessionTimeout, func(r frr.Route) bool { return r.Stale })
		if !r.HasCommunity("65001:100") {
			t.Errorf("stale route lost its community: %+v", r)
		}
		n, err = tp.frr.Neighbor("198.51.100.1")
		if err != nil {
			t.Fatal(err)
		}
		if n.MessageStats.NotificationsRecv != notifications {
			t.Errorf("FRR received %d NOTIFICATION(s) on a graceful stop", n.MessageStats.NotificationsRecv-notifications)
		}
		if strings.Contains(tp.agent.proc.Log(), password) {
			t.Errorf("the agent's log contains the MD5 password")
		}
	})
}

func tail(s string) string {
	if len(s) > 4000 {
		return s[len(s)-4000:]
	}
	return s
}
