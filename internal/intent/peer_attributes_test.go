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

// TestBuildGivesEachPeerItsOwnAttributes: the same pod CIDRs reach several peers of one
// speaker through different advertisements, and each peer gets them with the attributes
// of the advertisements it selects — not the union over the speaker's peers.
func TestBuildGivesEachPeerItsOwnAttributes(t *testing.T) {
	communities := func(std []kbgpv1.StandardCommunity, wk []kbgpv1.WellKnownCommunity, large []kbgpv1.LargeCommunity) *kbgpv1.BGPCommunities {
		return &kbgpv1.BGPCommunities{Standard: std, WellKnown: wk, Large: large}
	}
	ads := []kbgpv1.BGPAdvertisement{
		// Selected by rack-a only.
		podAdvertisement("rack-a", map[string]string{"rack": "a"}, &kbgpv1.BGPAttributes{
			Communities:     communities([]kbgpv1.StandardCommunity{"65001:101"}, nil, []kbgpv1.LargeCommunity{"65001:1:101"}),
			LocalPreference: ptr.To[int64](150),
		}),
		// Selected by rack-b only.
		podAdvertisement("rack-b", map[string]string{"rack": "b"}, &kbgpv1.BGPAttributes{
			Communities:     communities([]kbgpv1.StandardCommunity{"65001:102"}, []kbgpv1.WellKnownCommunity{"no-export"}, nil),
			LocalPreference: ptr.To[int64](300),
		}),
		// Selected by rack-a too: its communities join rack-a's, its higher local
		// preference wins for the iBGP peer.
		podAdvertisement("rack-a-extra", map[string]string{"rack": "a"}, &kbgpv1.BGPAttributes{
			Communities:     communities([]kbgpv1.StandardCommunity{"65001:101", "65001:999"}, nil, nil),
			LocalPreference: ptr.To[int64](200),
		}),
	}
	in := Input{
		NodeConfig: nodeConfig("",
			nodePeer("tor-a", "10.1.1.1", 65002, "rack-a"),
			nodePeer("rr-a", "10.1.1.3", 65001, "rack-a"),
			nodePeer("tor-b", "10.1.1.2", 65003, "rack-b"),
			nodePeer("quiet", "10.1.1.4", 65004, "quiet"),
		),
		Node: node(),
		PeerConfigs: map[string]*kbgpv1.BGPPeerConfig{
			"rack-a": selectingPeerConfig("rack-a", "rack", "a"),
			"rack-b": selectingPeerConfig("rack-b", "rack", "b"),
			"quiet":  selectingPeerConfig("quiet", "rack", "none"),
		},
		Advertisements: ads,
	}
	v4, v6 := netip.MustParsePrefix("10.244.1.0/24"), netip.MustParsePrefix("2001:db8:244:1::/64")
	rackA := bgp.PathAttributes{
		Communities:      []uint32{65001<<16 | 101, 65001<<16 | 999},
		LargeCommunities: []bgp.LargeCommunity{{GlobalAdmin: 65001, LocalData1: 1, LocalData2: 101}},
	}
	rackAIBGP := rackA
	rackAIBGP.LocalPreference = ptr.To[uint32](200)
	rackB := bgp.PathAttributes{Communities: []uint32{65001<<16 | 102, 0xFFFFFF01}}
	// The sessions are IPv4: IPv6 routes carry the Node's IPv6 InternalIP as next hop.
	both := func(a bgp.PathAttributes) []bgp.Path {
		a6 := a
		a6.NextHop = netip.MustParseAddr("2001:db8::10")
		return []bgp.Path{{Prefix: v4, Attributes: a}, {Prefix: v6, Attributes: a6}}
	}
	want := oneInstance(global("10.0.0.10"),
		desiredPeer(defaultPeer("tor-a", "10.1.1.1", 65002), both(rackA)...),
		desiredPeer(defaultPeer("rr-a", "10.1.1.3", 65001), both(rackAIBGP)...),
		desiredPeer(defaultPeer("tor-b", "10.1.1.2", 65003), both(rackB)...),
		desiredPeer(defaultPeer("quiet", "10.1.1.4", 65004)),
	)
	got := build(in).Desired
	if diff := cmp.Diff(want, got, cmpOpts...); diff != "" {
		t.Errorf("desired (-want +got):\n%s", diff)
	}
}
