package kubectlbgp

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// routesObjects: worker-r has an eBGP peer (tor-a) and an iBGP one (rr, MD5 Secret not
// readable) selecting different advertisements, so one prefix carries different
// attributes per peer; one Local Service has its endpoint here, another elsewhere.
func routesObjects() []client.Object {
	sel := func(v string) *kbgpv1.LabelSelector {
		return &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"to": kbgpv1.LabelValue(v)}}
	}
	peerConfig := func(name string, secret *string) *kbgpv1.BGPPeerConfig {
		return &kbgpv1.BGPPeerConfig{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: kbgpv1.BGPPeerConfigSpec{AuthSecretRef: secret,
			Families: []kbgpv1.BGPFamily{{AFI: kbgpv1.AFIIPv4, SAFI: kbgpv1.SAFIUnicast, Advertisements: sel(name)}}}}
	}
	lbAd := func(name, to string, attrs *kbgpv1.BGPAttributes) *kbgpv1.BGPAdvertisement {
		return &kbgpv1.BGPAdvertisement{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"to": to}},
			Spec: kbgpv1.BGPAdvertisementSpec{Advertisements: []kbgpv1.Advertisement{{AdvertisementType: kbgpv1.AdvertisementService,
				Service: &kbgpv1.ServiceAdvertisement{Addresses: []kbgpv1.ServiceAddressType{kbgpv1.ServiceLoadBalancerIP}, LoadBalancerIPPrefixes: []kbgpv1.CIDR{"100.64.1.0/24"}}, Attributes: attrs}}}}
	}
	lb := func(name, ip string, local bool) *corev1.Service {
		s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name}, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer},
			Status: corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{Ingress: []corev1.LoadBalancerIngress{{IP: ip}}}}}
		if local {
			s.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
		}
		return s
	}
	slice := func(svc, node string) *discoveryv1.EndpointSlice {
		ready := true
		return &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: svc + "-1", Labels: map[string]string{discoveryv1.LabelServiceName: svc}},
			Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.244.7.9"}, NodeName: &node, Conditions: discoveryv1.EndpointConditions{Ready: &ready}}}}
	}
	secret := "md5"
	nc := &kbgpv1.BGPNodeConfig{ObjectMeta: metav1.ObjectMeta{Name: "worker-r"}, Spec: kbgpv1.BGPNodeConfigSpec{BGPInstances: []kbgpv1.BGPNodeInstance{{
		BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: 65001},
		Peers: []kbgpv1.BGPNodePeer{
			{BGPPeer: kbgpv1.BGPPeer{Name: "tor-a", PeerAddress: "10.1.1.1", PeerASN: 65002, PeerConfigRef: &kbgpv1.PeerConfigReference{Name: "a"}}},
			{BGPPeer: kbgpv1.BGPPeer{Name: "rr", PeerAddress: "10.1.1.2", PeerASN: 65001, PeerConfigRef: &kbgpv1.PeerConfigReference{Name: "b"}}},
		},
	}}}}
	nc.Status.BGPInstances = []kbgpv1.BGPNodeInstanceStatus{{LocalASN: 65001, RouterID: "10.0.0.9", Peers: []kbgpv1.BGPNodePeerStatus{
		{Name: "tor-a", RoutesAdvertised: 3}, {Name: "rr", RoutesAdvertised: 1},
	}}}
	lp := int64(250)
	return []client.Object{
		nc,
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "worker-r"}, Spec: corev1.NodeSpec{PodCIDRs: []string{"10.244.7.0/24"}}},
		peerConfig("a", nil), peerConfig("b", &secret),
		&kbgpv1.BGPAdvertisement{ObjectMeta: metav1.ObjectMeta{Name: "pods", Labels: map[string]string{"to": "a"}},
			Spec: kbgpv1.BGPAdvertisementSpec{Advertisements: []kbgpv1.Advertisement{{AdvertisementType: kbgpv1.AdvertisementPodCIDR,
				Attributes: &kbgpv1.BGPAttributes{Communities: &kbgpv1.BGPCommunities{Standard: []kbgpv1.StandardCommunity{"65001:100"}}}}}}},
		lbAd("lb-a", "a", &kbgpv1.BGPAttributes{Communities: &kbgpv1.BGPCommunities{WellKnown: []kbgpv1.WellKnownCommunity{"no-export"}}}),
		lbAd("lb-b", "b", &kbgpv1.BGPAttributes{Communities: &kbgpv1.BGPCommunities{Standard: []kbgpv1.StandardCommunity{"65001:300"}}, LocalPreference: &lp}),
		lb("web", "100.64.1.1", false), lb("local", "100.64.1.2", true), lb("elsewhere", "100.64.1.3", true),
		slice("local", "worker-r"), slice("elsewhere", "worker-9"),
	}
}

func TestRoutesCommand(t *testing.T) {
	out, _, err := run(t, routesObjects(), "routes", "worker-r", "--computed", "-o", "wide")
	if err != nil {
		t.Fatal(err)
	}
	want := append(slices.Clone(computedCaveats),
		"NODE       INSTANCE   PEER    PREFIX          SERVICES     COMMUNITIES   LARGE-COMMUNITIES   LOCAL-PREF",
		"worker-r   65001      rr      100.64.1.1/32   shop/web     65001:300     -                   250",
		"worker-r   65001      rr      100.64.1.2/32   shop/local   65001:300     -                   250",
		"worker-r   65001      tor-a   10.244.7.0/24   -            65001:100     -                   -",
		"worker-r   65001      tor-a   100.64.1.1/32   shop/web     no-export     -                   -",
		"worker-r   65001      tor-a   100.64.1.2/32   shop/local   no-export     -                   -",
		"",
		"worker-r 65001 rr: 2 computed, 1 reported (differs: see kubectl bgp peers and kubectl bgp explain worker-r)",
		"worker-r 65001 tor-a: 3 computed, 3 reported",
		"note: Secret kbgp-system/md5 not readable: routes computed as if it existed (see kubectl bgp peers for the session)",
	)
	if got := strings.Split(strings.TrimRight(out, "\n"), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("kubectl bgp routes worker-r --computed -o wide:\n%s\nwant:\n%s", out, strings.Join(want, "\n"))
	}
}

func TestRoutesCommandWithReadableSecretAndNoNode(t *testing.T) {
	objs := append(routesObjects(), &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "kbgp-system", Name: "md5"},
		Data: map[string][]byte{"password": []byte("s3cret")}})
	out, _, err := run(t, objs, "routes", "--computed")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "note:") || strings.Contains(out, "s3cret") || strings.Contains(out, "LOCAL-PREF") {
		t.Errorf("with the Secret readable there is no note, never a password, and no wide columns:\n%s", out)
	}
	if !strings.Contains(out, "worker-r   65001      tor-a   100.64.1.2/32   shop/local   no-export") {
		t.Errorf("routes of every node when NODE is omitted:\n%s", out)
	}
}

// TestRoutesLeaveOutReservedAddresses: as the agent does, the plugin computes no
// route for a Service address that is another Node's address or in a ServiceCIDR.
func TestRoutesLeaveOutReservedAddresses(t *testing.T) {
	objs := append(routesObjects(),
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "worker-s"}, Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "100.64.1.2"}}}},
		&networkingv1.ServiceCIDR{ObjectMeta: metav1.ObjectMeta{Name: "extra"}, Spec: networkingv1.ServiceCIDRSpec{CIDRs: []string{"100.64.1.0/31"}}})
	out, _, err := run(t, objs, "routes", "worker-r", "--computed")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"100.64.1.1/32", "100.64.1.2/32"} {
		if strings.Contains(out, p) {
			t.Errorf("reserved %s computed as announced:\n%s", p, out)
		}
	}
	if !strings.Contains(out, "10.244.7.0/24") {
		t.Errorf("the pod CIDR is missing:\n%s", out)
	}
}
