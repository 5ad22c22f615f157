package intent

import (
	"net/netip"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
)

// TestGracefulShutdownOnDrain: a cordoned node sends its graceful-shutdown peers every
// path with 65535:0 (and local preference 0 to iBGP), other peers as before; an
// uncordoned node sends nobody the community; ShutdownWait is the longest wait.
func TestGracefulShutdownOnDrain(t *testing.T) {
	gs := func(name string, wait *int32) *kbgpv1.BGPPeerConfig {
		pc := selectingPeerConfig(name, "advertise", "pods")
		pc.Spec.Families = pc.Spec.Families[:1]
		pc.Spec.GracefulShutdown = &kbgpv1.BGPGracefulShutdown{Enabled: true, WaitSeconds: wait}
		return pc
	}
	plain := selectingPeerConfig("plain", "advertise", "pods")
	plain.Spec.Families = plain.Spec.Families[:1]
	ads := []kbgpv1.BGPAdvertisement{podAdvertisement("pods", map[string]string{"advertise": "pods"}, &kbgpv1.BGPAttributes{
		Communities: &kbgpv1.BGPCommunities{Standard: []kbgpv1.StandardCommunity{"65001:100"}}, LocalPreference: ptr.To[int64](200)})}
	input := func(cordoned bool) Input {
		n := node()
		n.Spec.Unschedulable = cordoned
		return Input{
			NodeConfig: nodeConfig("10.0.0.10",
				nodePeer("ebgp", "10.1.1.1", 65002, "gs"),
				nodePeer("ibgp", "10.1.1.2", 65001, "gs-long"),
				nodePeer("other", "10.1.1.3", 65003, "plain")),
			Node:           n,
			PeerConfigs:    map[string]*kbgpv1.BGPPeerConfig{"gs": gs("gs", nil), "gs-long": gs("gs-long", ptr.To[int32](90)), "plain": plain},
			Advertisements: ads,
		}
	}
	pod := netip.MustParsePrefix("10.244.1.0/24")
	c100 := uint32(65001<<16 | 100)
	attrs := func(res Result, peer string) bgp.PathAttributes {
		return res.Desired.Instances[key].Peers[peer].Export[pod]
	}

	drained := build(input(true))
	if got := attrs(drained, "ebgp"); len(got.Communities) != 2 || got.Communities[0] != c100 || got.Communities[1] != GracefulShutdownCommunity || got.LocalPreference != nil {
		t.Errorf("eBGP peer while drained: %+v, want 65001:100 and 65535:0, no local preference", got)
	}
	if got := attrs(drained, "ibgp"); len(got.Communities) != 2 || got.LocalPreference == nil || *got.LocalPreference != 0 {
		t.Errorf("iBGP peer while drained: %+v, want 65535:0 and local preference 0", got)
	}
	if got := attrs(drained, "other"); len(got.Communities) != 1 {
		t.Errorf("a peer without graceful shutdown while drained: %+v, want 65001:100 alone", got)
	}
	if drained.ShutdownWait != 90*time.Second {
		t.Errorf("ShutdownWait %s, want the longest, 90s", drained.ShutdownWait)
	}

	serving := build(input(false))
	for _, peer := range []string{"ebgp", "ibgp", "other"} {
		if got := attrs(serving, peer); len(got.Communities) != 1 {
			t.Errorf("%s while serving: %+v, want 65001:100 alone", peer, got)
		}
	}
	if got := attrs(serving, "ibgp"); got.LocalPreference == nil || *got.LocalPreference != 200 {
		t.Errorf("iBGP local preference while serving: %v, want 200", got.LocalPreference)
	}
	if serving.ShutdownWait != 0 {
		t.Errorf("ShutdownWait %s while serving", serving.ShutdownWait)
	}
}

// TestNetworkUnavailableHoldsServices: a node whose NetworkUnavailable condition is True
// announces its pod CIDRs but no Service address, until the condition clears.
func TestNetworkUnavailableHoldsServices(t *testing.T) {
	pc := selectingPeerConfig("pc", "advertise", "bgp")
	ads := []kbgpv1.BGPAdvertisement{
		podAdvertisement("pods", map[string]string{"advertise": "bgp"}, nil),
		serviceAd("lb", nil, "65001:1", kbgpv1.ServiceLoadBalancerIP),
	}
	svc := lbService("web", nil, "203.0.113.10")
	input := func(status corev1.ConditionStatus) Input {
		n := node()
		n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeNetworkUnavailable, Status: status}}
		return Input{NodeConfig: nodeConfig("10.0.0.10", nodePeer("tor", "10.1.1.1", 65002, "pc")), Node: n,
			PeerConfigs: map[string]*kbgpv1.BGPPeerConfig{"pc": pc}, Advertisements: ads, Services: []corev1.Service{svc}}
	}
	has := func(res Result, p string) bool {
		_, ok := res.Desired.Instances[key].Peers["tor"].Export[netip.MustParsePrefix(p)]
		return ok
	}
	down := build(input(corev1.ConditionTrue))
	if !has(down, "10.244.1.0/24") || has(down, "203.0.113.10/32") {
		t.Errorf("NetworkUnavailable=True: pod CIDR %v (want true), Service %v (want false)", has(down, "10.244.1.0/24"), has(down, "203.0.113.10/32"))
	}
	up := build(input(corev1.ConditionFalse))
	if !has(up, "10.244.1.0/24") || !has(up, "203.0.113.10/32") {
		t.Errorf("NetworkUnavailable=False: pod CIDR %v, Service %v (want both)", has(up, "10.244.1.0/24"), has(up, "203.0.113.10/32"))
	}
}
