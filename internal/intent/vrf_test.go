package intent

import (
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
)

// vrfPeer is a node peer in vrf with a peer config of the same name.
func vrfPeer(name, addr string, asn int64, vrf string) kbgpv1.BGPNodePeer {
	p := nodePeer(name, addr, asn, name)
	p.VRF = vrf
	return p
}

// familyConfig is a peer config running one family, advertising what label selects.
func familyConfig(name string, afi kbgpv1.AFI, label string) *kbgpv1.BGPPeerConfig {
	return &kbgpv1.BGPPeerConfig{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: kbgpv1.BGPPeerConfigSpec{
		Families: []kbgpv1.BGPFamily{{AFI: afi, SAFI: kbgpv1.SAFIUnicast,
			Advertisements: &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"advertise": kbgpv1.LabelValue(label)}}}},
	}}
}

// TestBuildVRFSpeakers covers the grouping of peers into one speaker per (instance,
// VRF): the same address in two VRFs, the listener of each speaker, the router ID they
// share, what each peer is sent, and peers whose VRF device is missing.
func TestBuildVRFSpeakers(t *testing.T) {
	v4, v6 := netip.MustParsePrefix("10.244.1.0/24"), netip.MustParsePrefix("2001:db8:244:1::/64")
	configs := map[string]*kbgpv1.BGPPeerConfig{
		"red":   familyConfig("red", kbgpv1.AFIIPv4, "pods"),
		"blue":  familyConfig("blue", kbgpv1.AFIIPv6, "pods"),
		"ghost": familyConfig("ghost", kbgpv1.AFIIPv4, "pods"),
		"tor":   familyConfig("tor", kbgpv1.AFIIPv4, "none"),
	}
	ads := []kbgpv1.BGPAdvertisement{podAdvertisement("pods", map[string]string{"advertise": "pods"}, nil)}
	peer := func(name string, vrf string, fam bgp.Family) bgp.Peer {
		p := defaultPeer(name, "10.77.0.2", 65077)
		p.BindDevice, p.Families = vrf, []bgp.Family{fam}
		return p
	}
	speaker := func(vrf string, listen uint16, peers ...bgp.DesiredPeer) bgp.DesiredInstance {
		di := bgp.DesiredInstance{
			Global: bgp.Global{ASN: 65001, RouterID: netip.MustParseAddr("10.0.0.10"), ListenPort: listen, BindDevice: vrf},
			Peers:  map[string]bgp.DesiredPeer{},
		}
		for _, p := range peers {
			di.Peers[p.Name] = p
		}
		if vrf == "" && listen != 0 { // the default speaker listens on the Node's InternalIPs
			di.Global.ListenAddresses = []netip.Addr{netip.MustParseAddr("10.0.0.10"), netip.MustParseAddr("2001:db8::10")}
		}
		return di
	}
	red := desiredPeer(peer("red", "vrfa", bgp.FamilyIPv4Unicast), bgp.Path{Prefix: v4})
	// blue's session is IPv4: its IPv6 routes carry the Node's IPv6 InternalIP as next hop.
	blue := desiredPeer(peer("blue", "vrfb", bgp.FamilyIPv6Unicast), bgp.Path{Prefix: v6, Attributes: bgp.PathAttributes{NextHop: netip.MustParseAddr("2001:db8::10")}})
	tor := desiredPeer(peer("tor", "", bgp.FamilyIPv4Unicast))
	redKey, blueKey := bgp.InstanceKey{LocalASN: 65001, VRF: "vrfa"}, bgp.InstanceKey{LocalASN: 65001, VRF: "vrfb"}
	ghostKey := bgp.InstanceKey{LocalASN: 65001, VRF: "vrfc"}

	tests := []struct {
		name       string
		peers      []kbgpv1.BGPNodePeer
		missing    []string
		previous   map[bgp.InstanceKey]bgp.DesiredInstance
		want       map[bgp.InstanceKey]bgp.DesiredInstance
		wantFailed []kbgpv1.FailedResource
	}{{
		name:  "one address in two VRFs: two speakers, each listening on its own device, the instance's router ID",
		peers: []kbgpv1.BGPNodePeer{vrfPeer("red", "10.77.0.2", 65077, "vrfa"), vrfPeer("blue", "10.77.0.2", 65077, "vrfb")},
		want:  map[bgp.InstanceKey]bgp.DesiredInstance{redKey: speaker("vrfa", 179, red), blueKey: speaker("vrfb", 179, blue)},
	}, {
		name:       "a missing VRF device: its peer is not started and reported, the others run",
		peers:      []kbgpv1.BGPNodePeer{vrfPeer("red", "10.77.0.2", 65077, "vrfa"), vrfPeer("ghost", "10.77.0.2", 65077, "vrfc")},
		missing:    []string{"vrfc"},
		want:       map[bgp.InstanceKey]bgp.DesiredInstance{redKey: speaker("vrfa", 179, red)},
		wantFailed: []kbgpv1.FailedResource{missingVRF("vrfc")},
	}, {
		name:       "a VRF device that went away: its peer stops instead of keeping its last configuration",
		peers:      []kbgpv1.BGPNodePeer{vrfPeer("red", "10.77.0.2", 65077, "vrfa"), vrfPeer("ghost", "10.77.0.2", 65077, "vrfc")},
		missing:    []string{"vrfc"},
		previous:   map[bgp.InstanceKey]bgp.DesiredInstance{ghostKey: speaker("vrfc", 179, desiredPeer(peer("ghost", "vrfc", bgp.FamilyIPv4Unicast), bgp.Path{Prefix: v4}))},
		want:       map[bgp.InstanceKey]bgp.DesiredInstance{redKey: speaker("vrfa", 179, red)},
		wantFailed: []kbgpv1.FailedResource{missingVRF("vrfc")},
	}, {
		name:  "a missing device that is not a VRF of this node config changes nothing",
		peers: []kbgpv1.BGPNodePeer{vrfPeer("tor", "10.77.0.2", 65077, "")},
		// "" can never be missing: it is the default VRF.
		missing: []string{"", "vrfz"},
		want:    map[bgp.InstanceKey]bgp.DesiredInstance{key: speaker("", 179, tor)},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			nc := nodeConfig("", tc.peers...)
			nc.Spec.BGPInstances[0].LocalPort = ptr.To[int32](179)
			in := Input{NodeConfig: nc, Node: node(), PeerConfigs: configs, Advertisements: ads,
				MissingVRFs: map[string]struct{}{}, Previous: bgp.Desired{Instances: tc.previous}}
			for _, m := range tc.missing {
				in.MissingVRFs[m] = struct{}{}
			}
			got := build(in)
			if diff := cmp.Diff(tc.want, got.Desired.Instances, cmpOpts...); diff != "" {
				t.Errorf("speakers (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantFailed, got.Failed, cmpOpts...); diff != "" {
				t.Errorf("failed resources (-want +got):\n%s", diff)
			}
		})
	}
}
