package e2e

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/test/e2e/netlab"
)

// The load-balancer e2e's pool and the namespace of its Services.
const (
	lbNamespace = "e2e-lb"
	lbPool4     = "100.64.30.0/24"
	lbPool6     = "2001:db8:30::/120"
)

// TestLoadBalancerAddressesFromAPool runs the whole path with nobody writing Service
// status by hand: `kbgp operator` renders the node's config from a cluster config and
// gives LoadBalancer Services addresses from a LoadBalancerIPPool, and `kbgp agent`
// announces them to FRR over an IPv4 and an IPv6 session. A single-stack Service's /32
// and a dual-stack Service's /32 and /128 reach FRR; a Service of another class gets no
// address and nothing reaches FRR for it; selecting and unselecting a Service by label
// (on the advertisement's side and on the Service's) announces and withdraws it without
// a session reset; deleting a Service withdraws its routes.
func TestLoadBalancerAddressesFromAPool(t *testing.T) {
	lab := netlab.New(t)
	nodeNS, frrNS, ctl := lab.Namespace("node"), lab.Namespace("frr"), lab.Namespace("ctl")
	lab.Link(nodeNS, "to-frr", []string{"198.51.100.1/30", "2001:db8:1::1/64"}, frrNS, "to-node", []string{"198.51.100.2/30", "2001:db8:1::2/64"})
	f := netlab.StartFRR(frrNS, netlab.FRRConfig{
		ASN: 65010, RouterID: "198.51.100.2", ListenAddrs: []string{"198.51.100.2", "2001:db8:1::2"},
		RawConfig: `
neighbor 198.51.100.1 remote-as 65001
neighbor 198.51.100.1 timers connect 1
neighbor 2001:db8:1::1 remote-as 65001
neighbor 2001:db8:1::1 timers connect 1
address-family ipv4 unicast
 network 0.0.0.0/0
 network 10.123.0.0/16
exit-address-family
address-family ipv6 unicast
 neighbor 2001:db8:1::1 activate
 network ::/0
 network 2001:db8:123::/48
exit-address-family
`,
	})
	nodeName := "e2e-lb-" + strings.Trim(lab.Prefix(), "-")
	createLoadBalancerObjects(t, nodeName)

	startOperatorProcess(t, lab, ctl)
	startAgent(t, lab, nodeNS, nodeName)
	f.WaitNeighborState(t, "198.51.100.1", "Established", sessionTimeout)
	f.WaitNeighborState(t, "2001:db8:1::1", "Established", sessionTimeout)
	neverImports(t, nodeNS, nodeName)

	web := lbServiceFor(t, "web", nil)
	webIP := waitIngress(t, web, 1)[0]
	if !netip.MustParsePrefix(lbPool4).Contains(webIP) {
		t.Fatalf("web got %s, outside the pool's %s", webIP, lbPool4)
	}
	waitFRRPrefix(t, f, "ipv4", webIP.String()+"/32", true)

	dual := lbServiceFor(t, "dual", func(s *corev1.Service) {
		s.Spec.IPFamilyPolicy = ptr.To(corev1.IPFamilyPolicyRequireDualStack)
		s.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol, corev1.IPv6Protocol}
	})
	dualIPs := waitIngress(t, dual, 2)
	if !netip.MustParsePrefix(lbPool6).Contains(dualIPs[1]) {
		t.Fatalf("dual got %v, no IPv6 address of the pool's %s", dualIPs, lbPool6)
	}
	waitFRRPrefix(t, f, "ipv4", dualIPs[0].String()+"/32", true)
	waitFRRPrefix(t, f, "ipv6", dualIPs[1].String()+"/128", true)

	endpointChurnKeepsTheRoute(t, f, nodeName)

	// Another class is another controller's: no address, nothing announced. The
	// operator has had the whole dual-stack allocation to serve it meanwhile.
	other := lbServiceFor(t, "other", func(s *corev1.Service) { s.Spec.LoadBalancerClass = ptr.To("example.com/other") })
	time.Sleep(2 * time.Second)
	if got := currentIngress(t, other); len(got) != 0 {
		t.Fatalf("a Service of another class got %v", got)
	}

	// Live selection: the advertisement narrowed to Services labelled expose=public
	// withdraws web, labelling web brings it back, unlabelling withdraws it again; no
	// session resets on the way.
	drops := dropped(t, f, "198.51.100.1")
	update(t, &kbgpv1.BGPAdvertisement{ObjectMeta: metav1.ObjectMeta{Name: "e2e-lb"}}, func(a *kbgpv1.BGPAdvertisement) {
		a.Spec.Advertisements[0].Selector = &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"expose": "public"}}
	})
	waitFRRPrefix(t, f, "ipv4", webIP.String()+"/32", false)
	update(t, web, func(s *corev1.Service) { s.Labels = map[string]string{"expose": "public"} })
	waitFRRPrefix(t, f, "ipv4", webIP.String()+"/32", true)
	update(t, web, func(s *corev1.Service) { s.Labels = nil })
	waitFRRPrefix(t, f, "ipv4", webIP.String()+"/32", false)
	update(t, &kbgpv1.BGPAdvertisement{ObjectMeta: metav1.ObjectMeta{Name: "e2e-lb"}}, func(a *kbgpv1.BGPAdvertisement) {
		a.Spec.Advertisements[0].Selector = nil
	})
	waitFRRPrefix(t, f, "ipv4", webIP.String()+"/32", true)
	if got := dropped(t, f, "198.51.100.1"); got != drops {
		t.Errorf("selection edits reset the session: connectionsDropped %d -> %d", drops, got)
	}

	if err := server.Client.Delete(context.Background(), dual); err != nil {
		t.Fatal(err)
	}
	waitFRRPrefix(t, f, "ipv4", dualIPs[0].String()+"/32", false)
	waitFRRPrefix(t, f, "ipv6", dualIPs[1].String()+"/128", false)
	waitFRRPrefix(t, f, "ipv4", webIP.String()+"/32", true)
}

// endpointChurnKeepsTheRoute: an externalTrafficPolicy Local Service with two ready
// endpoints on the node, one of them flapping through a rollout (not ready, ready, its
// slice replaced), is never withdrawn while the other stays ready — FRR's table is
// sampled throughout; once neither is ready the route goes (which the sampler must see).
func endpointChurnKeepsTheRoute(t *testing.T, f *netlab.FRR, nodeName string) {
	t.Helper()
	svc := lbServiceFor(t, "local", func(s *corev1.Service) { s.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal })
	ip := waitIngress(t, svc, 1)[0].String() + "/32"
	slice := func(name string, ready bool) *discoveryv1.EndpointSlice {
		return &discoveryv1.EndpointSlice{
			ObjectMeta:  metav1.ObjectMeta{Namespace: lbNamespace, Name: name, Labels: map[string]string{discoveryv1.LabelServiceName: "local"}},
			AddressType: discoveryv1.AddressTypeIPv4,
			Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.244.9.9"}, NodeName: ptr.To(nodeName),
				Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(ready)}}},
		}
	}
	stable, churning := slice("local-stable", true), slice("local-churn", true)
	create(t, stable, churning)
	waitFRRPrefix(t, f, "ipv4", ip, true)

	var missing, samples atomic.Int32
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			select {
			case <-done:
				return
			case <-time.After(50 * time.Millisecond):
			}
			if routes, err := f.Routes("ipv4"); err == nil {
				samples.Add(1)
				if _, ok := routes[ip]; !ok {
					missing.Add(1)
				}
			}
		}
	}()
	// Ten changes at least, and on until FRR's table was read ten times during them (each
	// read is a vtysh call, slow on a loaded machine).
	for i := 0; i < 10 || (samples.Load() < 10 && i < 300); i++ {
		update(t, churning, func(s *discoveryv1.EndpointSlice) { s.Endpoints[0].Conditions.Ready = ptr.To(i%2 == 1) })
		time.Sleep(100 * time.Millisecond)
	}
	// The rollout replaces the churning slice with a new one.
	if err := server.Client.Delete(context.Background(), churning); err != nil {
		t.Fatal(err)
	}
	create(t, slice("local-next", true))
	time.Sleep(time.Second)
	close(done)
	<-sampled
	if samples.Load() < 10 || missing.Load() > 0 {
		t.Errorf("endpoint churn: the route was missing in %d of %d samples of FRR's table while a ready endpoint stayed", missing.Load(), samples.Load())
	}
	update(t, stable, func(s *discoveryv1.EndpointSlice) { s.Endpoints[0].Conditions.Ready = ptr.To(false) })
	update(t, &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: lbNamespace, Name: "local-next"}}, func(s *discoveryv1.EndpointSlice) {
		s.Endpoints[0].Conditions.Ready = ptr.To(false)
	})
	waitFRRPrefix(t, f, "ipv4", ip, false)
}

// neverImports: FRR announces a default route and a /16 (a ::/0 and a /48 over the
// IPv6 session); the node's status counts them as received, and none reaches the
// node's kernel.
func neverImports(t *testing.T, nodeNS *netlab.Namespace, nodeName string) {
	t.Helper()
	netlab.WaitFor(t, sessionTimeout, 500*time.Millisecond, func() (bool, string) {
		st := nodeStatus(t, nodeName)
		got := map[string]int64{}
		for _, inst := range st.BGPInstances {
			for _, p := range inst.Peers {
				got[p.Name] = p.RoutesReceived
			}
		}
		return got["frr-v4"] == 2 && got["frr-v6"] == 2, fmt.Sprintf("routes received per peer: %v, want 2 and 2", got)
	})
	for _, family := range []string{"-4", "-6"} {
		out := nodeNS.MustExec("ip", family, "route", "show", "table", "all")
		for _, leaked := range []string{"default", "10.123.", "2001:db8:123:"} {
			for _, line := range strings.Split(out, "\n") {
				if strings.HasPrefix(line, leaked) && !strings.Contains(line, "table local") {
					t.Errorf("a received route reached the node's kernel: %q", line)
				}
			}
		}
	}
}

// startOperatorProcess runs `kbgp operator` in ns, reaching the API server through a
// relay as the agents do.
func startOperatorProcess(t *testing.T, lab *netlab.Lab, ns *netlab.Namespace) *netlab.Process {
	t.Helper()
	kubeconfig, _ := lab.RelayedKubeconfig(ns, server.Config.Host, "operator", func(path string) error {
		return server.WriteKubeconfig(path, "e2e-operator")
	})
	return ns.Start("kbgp-operator", kbgpBinary, "operator", "--kubeconfig", kubeconfig, "--agent-namespace", agentNamespace,
		"--metrics-bind-address", "0", "--health-probe-bind-address", "0")
}

// createLoadBalancerObjects configures node through a cluster config, as an operator
// user would: an IPv4 and an IPv6 peer, an advertisement of load-balancer IPs with no
// allowed prefixes (the pool's addresses are allowed as they are) and the pool.
func createLoadBalancerObjects(t *testing.T, nodeName string) {
	t.Helper()
	ensureNamespace(t)
	if err := server.EnsureNamespace(context.Background(), lbNamespace); err != nil {
		t.Fatal(err)
	}
	sel := &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"advertise": "e2e-lb"}}
	timers := &kbgpv1.BGPTimers{ConnectRetryTimeSeconds: ptr.To[int32](1), HoldTimeSeconds: ptr.To[int32](9), KeepAliveTimeSeconds: ptr.To[int32](3)}
	v4 := &kbgpv1.BGPPeerConfig{ObjectMeta: metav1.ObjectMeta{Name: "e2e-lb-v4"}, Spec: kbgpv1.BGPPeerConfigSpec{
		Timers: timers, Families: []kbgpv1.BGPFamily{{AFI: kbgpv1.AFIIPv4, SAFI: kbgpv1.SAFIUnicast, Advertisements: sel}}}}
	v6 := &kbgpv1.BGPPeerConfig{ObjectMeta: metav1.ObjectMeta{Name: "e2e-lb-v6"}, Spec: kbgpv1.BGPPeerConfigSpec{
		Timers: timers.DeepCopy(), Families: []kbgpv1.BGPFamily{{AFI: kbgpv1.AFIIPv6, SAFI: kbgpv1.SAFIUnicast, Advertisements: sel}}}}
	cc := &kbgpv1.BGPClusterConfig{ObjectMeta: metav1.ObjectMeta{Name: "e2e-lb"}, Spec: kbgpv1.BGPClusterConfigSpec{
		NodeSelector: &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"e2e": "lb"}},
		BGPInstances: []kbgpv1.BGPInstance{{
			BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: 65001, RouterID: "10.99.0.30"},
			Peers: []kbgpv1.BGPPeer{
				{Name: "frr-v4", PeerAddress: "198.51.100.2", PeerASN: 65010, PeerConfigRef: &kbgpv1.PeerConfigReference{Name: v4.Name}},
				{Name: "frr-v6", PeerAddress: "2001:db8:1::2", PeerASN: 65010, PeerConfigRef: &kbgpv1.PeerConfigReference{Name: v6.Name}},
			},
		}},
	}}
	ad := &kbgpv1.BGPAdvertisement{ObjectMeta: metav1.ObjectMeta{Name: "e2e-lb", Labels: map[string]string{"advertise": "e2e-lb"}},
		Spec: kbgpv1.BGPAdvertisementSpec{Advertisements: []kbgpv1.Advertisement{{
			AdvertisementType: kbgpv1.AdvertisementService,
			Service:           &kbgpv1.ServiceAdvertisement{Addresses: []kbgpv1.ServiceAddressType{kbgpv1.ServiceLoadBalancerIP}},
		}}}}
	pool := &kbgpv1.LoadBalancerIPPool{ObjectMeta: metav1.ObjectMeta{Name: "e2e-lb"}, Spec: kbgpv1.LoadBalancerIPPoolSpec{
		Blocks:          []kbgpv1.IPBlock{{CIDR: lbPool4}, {CIDR: lbPool6}},
		ServiceSelector: &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"kbgp.io/service-namespace": lbNamespace}},
	}}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: nodeName, Labels: map[string]string{"e2e": "lb"}}}
	create(t, node, v4, v6, cc, ad, pool)
}

// lbServiceFor creates a LoadBalancer Service in the e2e's namespace with no address.
func lbServiceFor(t *testing.T, name string, mut func(*corev1.Service)) *corev1.Service {
	t.Helper()
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: lbNamespace, Name: name},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: []corev1.ServicePort{{Port: 80}}},
	}
	if mut != nil {
		mut(svc)
	}
	create(t, svc)
	return svc
}

func currentIngress(t *testing.T, svc *corev1.Service) []netip.Addr {
	t.Helper()
	var got corev1.Service
	if err := server.Client.Get(context.Background(), types.NamespacedName{Namespace: svc.Namespace, Name: svc.Name}, &got); err != nil {
		t.Fatal(err)
	}
	var out []netip.Addr
	for _, ing := range got.Status.LoadBalancer.Ingress {
		out = append(out, netip.MustParseAddr(ing.IP))
	}
	return out
}

// waitIngress waits until the operator gave the Service n addresses.
func waitIngress(t *testing.T, svc *corev1.Service, n int) []netip.Addr {
	t.Helper()
	var got []netip.Addr
	netlab.WaitFor(t, sessionTimeout, 200*time.Millisecond, func() (bool, string) {
		got = currentIngress(t, svc)
		return len(got) == n, fmt.Sprintf("Service %s/%s has ingress %v, want %d addresses", svc.Namespace, svc.Name, got, n)
	})
	return got
}

// waitFRRPrefix waits until prefix is (or is not) in FRR's table of afi.
func waitFRRPrefix(t *testing.T, f *netlab.FRR, afi, prefix string, present bool) {
	t.Helper()
	netlab.WaitFor(t, sessionTimeout, 300*time.Millisecond, func() (bool, string) {
		routes, err := f.Routes(afi)
		_, ok := routes[prefix]
		return err == nil && ok == present, fmt.Sprintf("FRR %s: %s present=%v (want %v): %v", afi, prefix, ok, present, err)
	})
}
