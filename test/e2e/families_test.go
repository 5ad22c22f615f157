package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/frr"
	"kbgp.io/kbgp/test/e2e/netlab"
)

// TestFamiliesAcrossSessions: each family over the other's session, as routers are
// often configured. One session over IPv6 with TCP MD5 carries IPv4 and IPv6 pod CIDRs;
// one over IPv4 carries both as well. FRR must hold each prefix from each session with
// a next hop it can use: the node's address of the prefix's family (its InternalIP),
// not the session's address of the other family — an IPv6 next hop for IPv4 routes,
// which needs RFC 8950, or an IPv4-mapped IPv6 one, which no kernel routes through.
func TestFamiliesAcrossSessions(t *testing.T) {
	independent(t)
	lab := netlab.New(t)
	nodeNS, frrNS := lab.Namespace("node"), lab.Namespace("frr")
	lab.Link(nodeNS, "to-frr", []string{"198.51.100.1/30", "2001:db8:1::1/64"}, frrNS, "to-node", []string{"198.51.100.2/30", "2001:db8:1::2/64"})
	f := netlab.StartFRR(frrNS, netlab.FRRConfig{
		ASN: 65010, RouterID: "198.51.100.2", ListenAddrs: []string{"198.51.100.2", "2001:db8:1::2"},
		RawConfig: `
neighbor 198.51.100.1 remote-as 65001
neighbor 198.51.100.1 timers connect 1
neighbor 2001:db8:1::1 remote-as 65001
neighbor 2001:db8:1::1 timers connect 1
neighbor 2001:db8:1::1 password ` + password + `
address-family ipv4 unicast
 neighbor 2001:db8:1::1 activate
exit-address-family
address-family ipv6 unicast
 neighbor 198.51.100.1 activate
 neighbor 2001:db8:1::1 activate
exit-address-family
`,
	})
	nodeName := "e2e-fam-" + strings.Trim(lab.Prefix(), "-")
	ensureNamespace(t)
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: nodeName + "-auth", Namespace: agentNamespace}, Data: map[string][]byte{"password": []byte(password)}}
	sel := &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"advertise": kbgpv1.LabelValue(nodeName)}}
	both := []kbgpv1.BGPFamily{{AFI: kbgpv1.AFIIPv4, SAFI: kbgpv1.SAFIUnicast, Advertisements: sel}, {AFI: kbgpv1.AFIIPv6, SAFI: kbgpv1.SAFIUnicast, Advertisements: sel}}
	timers := &kbgpv1.BGPTimers{ConnectRetryTimeSeconds: ptr.To[int32](1), HoldTimeSeconds: ptr.To[int32](9), KeepAliveTimeSeconds: ptr.To[int32](3)}
	plain := &kbgpv1.BGPPeerConfig{ObjectMeta: metav1.ObjectMeta{Name: nodeName + "-plain"}, Spec: kbgpv1.BGPPeerConfigSpec{Timers: timers, Families: both}}
	md5 := &kbgpv1.BGPPeerConfig{ObjectMeta: metav1.ObjectMeta{Name: nodeName + "-md5"}, Spec: kbgpv1.BGPPeerConfigSpec{Timers: timers.DeepCopy(), Families: both, AuthSecretRef: ptr.To(secret.Name)}}
	nc := &kbgpv1.BGPNodeConfig{ObjectMeta: metav1.ObjectMeta{Name: nodeName}, Spec: kbgpv1.BGPNodeConfigSpec{BGPInstances: []kbgpv1.BGPNodeInstance{{
		BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: 65001, RouterID: "10.99.0.40"},
		Peers: []kbgpv1.BGPNodePeer{
			{BGPPeer: kbgpv1.BGPPeer{Name: "over-v4", PeerAddress: "198.51.100.2", PeerASN: 65010, PeerConfigRef: &kbgpv1.PeerConfigReference{Name: plain.Name}}},
			{BGPPeer: kbgpv1.BGPPeer{Name: "over-v6-md5", PeerAddress: "2001:db8:1::2", PeerASN: 65010, PeerConfigRef: &kbgpv1.PeerConfigReference{Name: md5.Name}}},
		},
	}}}}
	ad := &kbgpv1.BGPAdvertisement{ObjectMeta: metav1.ObjectMeta{Name: nodeName, Labels: map[string]string{"advertise": nodeName}},
		Spec: kbgpv1.BGPAdvertisementSpec{Advertisements: []kbgpv1.Advertisement{{AdvertisementType: kbgpv1.AdvertisementPodCIDR}}}}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: nodeName}, Spec: corev1.NodeSpec{PodCIDRs: []string{podCIDR4, podCIDR6}}}
	create(t, node, secret, plain, md5, ad, nc)
	node.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "198.51.100.1"}, {Type: corev1.NodeInternalIP, Address: "2001:db8:1::1"}}
	if err := server.Client.Status().Update(t.Context(), node); err != nil {
		t.Fatal(err)
	}
	startAgent(t, lab, nodeNS, nodeName)
	f.WaitNeighborState(t, "198.51.100.1", "Established", sessionTimeout)
	f.WaitNeighborState(t, "2001:db8:1::1", "Established", sessionTimeout)

	for _, c := range []struct {
		afi, prefix string
		// nexthops are, per session, the next hop FRR must show.
		nexthops map[string]string
	}{
		{"ipv4", podCIDR4, map[string]string{"198.51.100.1": "198.51.100.1", "2001:db8:1::1": "198.51.100.1"}},
		{"ipv6", podCIDR6, map[string]string{"198.51.100.1": "2001:db8:1::1", "2001:db8:1::1": "2001:db8:1::1"}},
	} {
		netlab.WaitFor(t, sessionTimeout, 300*time.Millisecond, func() (bool, string) {
			routes, err := f.Routes(c.afi)
			if err != nil {
				return false, err.Error()
			}
			got := map[string]string{}
			for _, p := range routes[c.prefix].Paths {
				if p.Valid {
					got[p.PeerID] = nexthopAddrs(p)
				}
			}
			return fmt.Sprint(got) == fmt.Sprint(c.nexthops), fmt.Sprintf("FRR's valid paths for %s by session: next hops %v, want %v", c.prefix, got, c.nexthops)
		})
	}
}

// nexthopAddrs is the path's first next-hop address (global, for IPv6).
func nexthopAddrs(p frr.Path) string {
	for _, nh := range p.Nexthops {
		return nh.IP
	}
	return ""
}
