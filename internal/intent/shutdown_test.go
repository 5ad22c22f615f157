package intent

import (
	"net/netip"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// selectingPeerConfig is a dual-stack peer config whose families select the
// advertisements labelled key=value.
func selectingPeerConfig(name, key, value string) *kbgpv1.BGPPeerConfig {
	sel := &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{key: kbgpv1.LabelValue(value)}}
	return &kbgpv1.BGPPeerConfig{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: kbgpv1.BGPPeerConfigSpec{Families: []kbgpv1.BGPFamily{
			{AFI: kbgpv1.AFIIPv4, SAFI: kbgpv1.SAFIUnicast, Advertisements: sel},
			{AFI: kbgpv1.AFIIPv6, SAFI: kbgpv1.SAFIUnicast, Advertisements: sel},
		}},
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
