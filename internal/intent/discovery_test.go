package intent

import (
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
)

// ifacePeer is a node peer over iface with a peer config of the same name as the peer.
func ifacePeer(name, iface string) kbgpv1.BGPNodePeer {
	p := nodePeer(name, "", 65000, name)
	p.Interface = iface
	return p
}

// TestBuildInterfacePeers: a peer over an interface runs to the router found on it,
// zoned with the interface, and is sent every family's routes without a next hop of
// its own (the speaker sends its link-local address, RFC 8950); an interface without a
// router is reported and its peer not started, whatever it ran before.
func TestBuildInterfacePeers(t *testing.T) {
	v4, v6 := netip.MustParsePrefix("10.244.1.0/24"), netip.MustParsePrefix("2001:db8:244:1::/64")
	router := netip.MustParseAddr("fe80::1")
	configs := map[string]*kbgpv1.BGPPeerConfig{"up1": fullFamilies("up1"), "up2": fullFamilies("up2")}
	ads := []kbgpv1.BGPAdvertisement{podAdvertisement("pods", map[string]string{"advertise": "pods"}, nil)}
	peer := func(name, iface string) bgp.DesiredPeer {
		p := defaultPeer(name, "fe80::1", 65000)
		p.Address, p.Interface = router.WithZone(iface), iface
		return desiredPeer(p, bgp.Path{Prefix: v4}, bgp.Path{Prefix: v6})
	}
	running := oneInstance(global("10.0.0.10"), peer("up2", "eth2"))

	tests := []struct {
		name       string
		neighbours map[string]netip.Addr
		previous   bgp.Desired
		want       bgp.Desired
		wantFailed []kbgpv1.FailedResource
	}{{
		name:       "both interfaces have their router",
		neighbours: map[string]netip.Addr{"eth1": router, "eth2": router},
		want:       oneInstance(global("10.0.0.10"), peer("up1", "eth1"), peer("up2", "eth2")),
	}, {
		name:       "no router on eth2: up2 is not started, even though it ran",
		neighbours: map[string]netip.Addr{"eth1": router},
		previous:   running,
		want:       oneInstance(global("10.0.0.10"), peer("up1", "eth1")),
		wantFailed: []kbgpv1.FailedResource{noNeighbour("eth2")},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := Input{NodeConfig: nodeConfig("", ifacePeer("up1", "eth1"), ifacePeer("up2", "eth2")), Node: node(),
				PeerConfigs: configs, Advertisements: ads, InterfaceNeighbors: tc.neighbours, Previous: tc.previous}
			got := build(in)
			if diff := cmp.Diff(tc.want.Instances, got.Desired.Instances, cmpOpts...); diff != "" {
				t.Errorf("speakers (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantFailed, got.Failed, cmpOpts...); diff != "" {
				t.Errorf("failed resources (-want +got):\n%s", diff)
			}
		})
	}
}

// fullFamilies is a peer config running IPv4 and IPv6, both advertising the pod CIDRs.
func fullFamilies(name string) *kbgpv1.BGPPeerConfig {
	c := familyConfig(name, kbgpv1.AFIIPv4, "pods")
	c.Spec.Families = append(c.Spec.Families, familyConfig(name, kbgpv1.AFIIPv6, "pods").Spec.Families...)
	return c
}

// TestBuildDefaultGatewayPeers: a peer discovering its family's default gateway runs to
// it (link-local with its zone); without a default route of its family it is reported
// and not started.
func TestBuildDefaultGatewayPeers(t *testing.T) {
	gwPeer := func(name string, afi kbgpv1.AFI) kbgpv1.BGPNodePeer {
		p := nodePeer(name, "", 65000, "")
		p.AutoDiscovery = &kbgpv1.PeerAutoDiscovery{Mode: kbgpv1.AutoDiscoveryDefaultGateway, DefaultGateway: &kbgpv1.DefaultGatewayDiscovery{AddressFamily: afi}}
		return p
	}
	want := func(name string, addr netip.Addr) bgp.DesiredPeer {
		p := defaultPeer(name, "10.0.0.1", 65000)
		p.Address = addr
		return desiredPeer(p)
	}
	v4, v6 := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("fe80::1").WithZone("eth0")
	tests := []struct {
		name       string
		gateways   map[kbgpv1.AFI]netip.Addr
		want       bgp.Desired
		wantFailed []kbgpv1.FailedResource
	}{{
		name:     "both families have a default gateway",
		gateways: map[kbgpv1.AFI]netip.Addr{kbgpv1.AFIIPv4: v4, kbgpv1.AFIIPv6: v6},
		want:     oneInstance(global("10.0.0.10"), want("gw4", v4), want("gw6", v6)),
	}, {
		name:       "no IPv6 default route",
		gateways:   map[kbgpv1.AFI]netip.Addr{kbgpv1.AFIIPv4: v4},
		want:       oneInstance(global("10.0.0.10"), want("gw4", v4)),
		wantFailed: []kbgpv1.FailedResource{noDefaultGateway(kbgpv1.AFIIPv6)},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := Input{NodeConfig: nodeConfig("", gwPeer("gw4", kbgpv1.AFIIPv4), gwPeer("gw6", kbgpv1.AFIIPv6)), Node: node(), DefaultGateways: tc.gateways}
			got := build(in)
			if diff := cmp.Diff(tc.want.Instances, got.Desired.Instances, cmpOpts...); diff != "" {
				t.Errorf("speakers (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantFailed, got.Failed, cmpOpts...); diff != "" {
				t.Errorf("failed resources (-want +got):\n%s", diff)
			}
		})
	}
}
