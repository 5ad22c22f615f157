package convert

import (
	"strings"
	"testing"
)

// TestSourceSemantics checks conversions against what MetalLB and Cilium do with a
// configuration, not what their documentation examples show: inputs of the shapes
// people write for their own clusters (issue 33). Each case names the source code
// behaviour it follows.
func TestSourceSemantics(t *testing.T) {
	peersBlock := "advertisements:\n      matchExpressions:\n      - key: convert.kbgp.io/metallb-advertisement\n        operator: In\n        values:\n        - everyone\n"
	tests := []struct {
		name  string
		input string
		// out must each be in the output, times times (0: at least once).
		out   []string
		times int
		// notOut must not be in the output.
		notOut []string
		// warn must each be in a warning; notWarn in none.
		warn, notWarn []string
	}{
		// MetalLB's bgpAdvertisementFromCR copies spec.peers only when it is not empty;
		// an advertisement without peers goes to every peer.
		{name: "MetalLB peers: [] is every peer",
			input: docs(metallbKind("IPAddressPool", "pool", "addresses: [10.60.0.0/24]"), metallbPeer("tor-a", "peerAddress: 10.0.0.1"), metallbPeer("tor-b", "peerAddress: 10.0.0.2"),
				metallbKind("BGPAdvertisement", "everyone", "ipAddressPools: [pool]\npeers: []")),
			out: []string{peersBlock}, times: 2},

		// MetalLB's parseTimers: a hold time alone gets a keepalive of a third of it, a
		// keepalive alone a hold time of three times it, whatever their values.
		{name: "MetalLB hold time alone", input: metallbPeer("p", "peerAddress: 10.0.0.1\nholdTime: 120s"),
			out: []string{"timers:\n    holdTimeSeconds: 120\n    keepAliveTimeSeconds: 40\n"}, notWarn: []string{"holdTime"}},
		{name: "MetalLB short hold time alone", input: metallbPeer("p", "peerAddress: 10.0.0.1\nholdTime: 9s"),
			out: []string{"timers:\n    holdTimeSeconds: 9\n    keepAliveTimeSeconds: 3\n"}, notWarn: []string{"holdTime"}},
		{name: "MetalLB keepalive alone", input: metallbPeer("p", "peerAddress: 10.0.0.1\nkeepaliveTime: 60s"),
			out: []string{"timers:\n    holdTimeSeconds: 180\n    keepAliveTimeSeconds: 60\n"}, notWarn: []string{"keepaliveTime"}},

		// Cilium's GoBGP server peers with netip.ParsePrefix(peerAddress).Addr(): the
		// prefix length of a v1 neighbour does not matter.
		{name: "Cilium neighbour written as a /24",
			input: ciliumPolicy("- localASN: 65001\n  neighbors:\n  - {peerAddress: 10.47.1.1/24, peerASN: 65000}\n  - {peerAddress: '2001:db8:47::1/64', peerASN: 65000}"),
			out:   []string{"peerAddress: 10.47.1.1/32\n", "peerAddress: 2001:db8:47::1/128\n"},
			warn: []string{`spec.virtualRouters[0].neighbors[0].peerAddress "10.47.1.1/24" is written as 10.47.1.1/32: Cilium peers with the address and ignores the prefix length, kbgp takes the address alone`,
				`spec.virtualRouters[0].neighbors[1].peerAddress "2001:db8:47::1/64" is written as 2001:db8:47::1/128`},
			notWarn: []string{"is not one address", "no BGPPeeringPolicy generated"}},

		// Cilium's NeighborReconciler keys neighbours by address and ASN, a later one
		// replacing an earlier one.
		{name: "Cilium duplicate neighbour, the last wins",
			input: ciliumPolicy("- localASN: 65001\n  neighbors:\n  - {peerAddress: 10.0.0.1/32, peerASN: 65000, holdTimeSeconds: 30}\n  - {peerAddress: 10.0.0.1/32, peerASN: 65000, holdTimeSeconds: 9}"),
			out:   []string{"holdTimeSeconds: 9\n"}, notOut: []string{"holdTimeSeconds: 30\n"},
			warn: []string{"spec.virtualRouters[0].neighbors[0] has the peerAddress and peerASN of a later neighbour of this virtual router, which Cilium uses instead: skipped"}},

		// Cilium's ExportPodCIDRReconciler announces CiliumNode spec.ipam.podCIDRs.
		{name: "Cilium exportPodCIDR", input: policyNeighbor("") + "    exportPodCIDR: true\n",
			warn: []string{"spec.virtualRouters[0].exportPodCIDR is converted, but Cilium announces the pod CIDRs of its own IPAM (CiliumNode spec.ipam.podCIDRs) and kbgp the Node's spec.podCIDRs, the same prefixes only in Cilium's IPAM mode kubernetes"}},
		{name: "Cilium PodCIDR advertisement", input: ciliumAdvert("- advertisementType: PodCIDR"),
			warn: []string{"spec.advertisements[0].advertisementType PodCIDR is converted, but Cilium announces the pod CIDRs of its own IPAM"}},

		// CiliumLoadBalancerIPPool: blocks as CIDR and start/stop (v2alpha1 also the
		// older cidrs), serviceSelector with Cilium's pseudo-labels, disabled; the
		// advertisements of load-balancer IPs announce inside the pools' blocks.
		{name: "CiliumLoadBalancerIPPool v2alpha1",
			input: docs("apiVersion: cilium.io/v2alpha1\nkind: CiliumLoadBalancerIPPool\nmetadata: {name: lb, labels: {team: web}}\nspec:\n  blocks:\n  - cidr: 10.50.0.0/24\n  - {start: 10.50.1.10, stop: 10.50.1.20}\n  serviceSelector: {matchLabels: {io.kubernetes.service.namespace: shop}}\n  disabled: true\n",
				ciliumAdvert("- advertisementType: Service\n  service: {addresses: [LoadBalancerIP]}\n  selector: {matchLabels: {bgp: announce}}")),
			out: []string{"kind: LoadBalancerIPPool\nmetadata:\n  labels:\n    team: web\n  name: lb\nspec:\n  blocks:\n  - cidr: 10.50.0.0/24\n  - start: 10.50.1.10\n    stop: 10.50.1.20\n  disabled: true\n  serviceSelector:\n    matchLabels:\n      kbgp.io/service-namespace: shop\n",
				"loadBalancerIPPrefixes:\n      - 10.50.0.0/24\n      - 10.50.1.10/31\n      - 10.50.1.12/30\n      - 10.50.1.16/30\n      - 10.50.1.20/32\n"},
			warn:    []string{"CiliumLoadBalancerIPPool/lb: is converted to a LoadBalancerIPPool; once one exists kbgp's operator hands out the load-balancer addresses, so apply the pools only after Cilium's LB-IPAM has stopped"},
			notWarn: []string{"is not converted", "add the ranges Cilium's LB-IPAM hands out"}},
		{name: "CiliumLoadBalancerIPPool v2, first and last reserved",
			input: docs("apiVersion: cilium.io/v2\nkind: CiliumLoadBalancerIPPool\nmetadata: {name: lb}\nspec:\n  allowFirstLastIPs: \"No\"\n  blocks:\n  - cidr: 10.50.0.0/24\n  - cidr: 10.50.2.0/31\n  - cidr: '2001:db8:50::/64'\n",
				ciliumAdvert("- advertisementType: Service\n  service: {addresses: [LoadBalancerIP]}\n  selector: {}")),
			out: []string{"blocks:\n  - start: 10.50.0.1\n    stop: 10.50.0.254\n  - cidr: 10.50.2.0/31\n  - start: 2001:db8:50::1\n    stop: 2001:db8:50:0:ffff:ffff:ffff:fffe\n",
				"loadBalancerIPPrefixes:\n      - 10.50.0.0/24\n      - 10.50.2.0/31\n      - 2001:db8:50::/64\n"}},
		{name: "CiliumLoadBalancerIPPool older cidrs",
			input: "apiVersion: cilium.io/v2alpha1\nkind: CiliumLoadBalancerIPPool\nmetadata: {name: lb}\nspec:\n  cidrs:\n  - cidr: 10.50.0.0/24\n",
			out:   []string{"blocks:\n  - cidr: 10.50.0.0/24\n"}},

		// MetalLB's selectors, as kubespray's and k3s-ansible's templates write them.
		{name: "peers pinned by hostname In",
			input: docs(metallbPeer("n1", "peerAddress: 10.0.0.1\nsourceAddress: 10.0.1.11\nnodeSelectors: [{matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [node-1]}]}]"),
				metallbPeer("n2", "peerAddress: 10.0.0.1\nsourceAddress: 10.0.1.12\nnodeSelectors: [{matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [node-2]}]}]")),
			out:     []string{"kind: BGPNodeConfigOverride\nmetadata:\n  name: node-1\n", "localAddress: 10.0.1.11\n", "kind: BGPNodeConfigOverride\nmetadata:\n  name: node-2\n", "localAddress: 10.0.1.12\n"},
			warn:    []string{"BGPPeer/n1: spec.sourceAddress is converted to a BGPNodeConfigOverride for node node-1"},
			notWarn: []string{"may select the same nodes", "not pinned"}},
		{name: "source address of a peer left out",
			input: docs(metallbPeer("a", "peerAddress: 10.0.0.1\nnodeSelectors: [{matchLabels: {kubernetes.io/hostname: node-1}}]"),
				metallbPeer("b", "peerAddress: 10.0.0.1\nsourceAddress: 10.0.1.11\nnodeSelectors: [{matchLabels: {kubernetes.io/hostname: node-1}}]")),
			notOut:  []string{"kind: BGPNodeConfigOverride"},
			warn:    []string{"BGPPeer/b: spec.sourceAddress is dropped: the peer is left out of every BGPClusterConfig"},
			notWarn: []string{"is converted to a BGPNodeConfigOverride"}},
		{name: "no cluster config for no node",
			input: docs(metallbPeer("all", "peerAddress: 10.0.0.1"),
				metallbPeer("rack-a", "peerAddress: 10.0.0.2\nnodeSelectors: [{matchLabels: {rack: a}}]"),
				metallbPeer("not-rack-a", "peerAddress: 10.0.0.3\nnodeSelectors: [{matchExpressions: [{key: rack, operator: NotIn, values: [a]}]}]")),
			notOut: []string{"name: all\nspec:\n  bgpInstances"}},

		// A misspelt field is named with the field it most likely is.
		{name: "localpref", input: metallbKind("BGPAdvertisement", "a", "localpref: 100"),
			warn:    []string{"BGPAdvertisement/a: spec.localpref is not a field of BGPAdvertisement: dropped; did you mean localPref?"},
			notWarn: []string{"has no kbgp equivalent"}},
		{name: "misspelt Cilium timer", input: policyNeighbor("connetRetryTimeSeconds: 90"),
			warn: []string{"spec.virtualRouters[0].neighbors[0].connetRetryTimeSeconds is not a field of CiliumBGPPeeringPolicy: dropped; did you mean connectRetryTimeSeconds?"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, warnings := convertYAML(t, tt.input)
			var ws []string
			for _, w := range warnings {
				ws = append(ws, w.String())
			}
			all := strings.Join(ws, "\n")
			for _, want := range tt.out {
				if n := strings.Count(out, want); n == 0 || tt.times > 0 && n != tt.times {
					t.Errorf("output has %d times (want %d, 0: at least once):\n%s\noutput:\n%s", n, tt.times, want, out)
				}
			}
			for _, bad := range tt.notOut {
				if strings.Contains(out, bad) {
					t.Errorf("output has\n%s\noutput:\n%s", bad, out)
				}
			}
			for _, want := range tt.warn {
				if !strings.Contains(all, want) {
					t.Errorf("no warning contains %q; warnings:\n%s", want, all)
				}
			}
			for _, bad := range tt.notWarn {
				if strings.Contains(all, bad) {
					t.Errorf("a warning contains %q; warnings:\n%s", bad, all)
				}
			}
		})
	}
}
