package convert

import (
	"fmt"
	"strings"
	"testing"
)

// Inputs for the warning cases: one object of each kind whose interesting part the
// case supplies.

func ciliumPolicy(routers string) string {
	return "apiVersion: cilium.io/v2alpha1\nkind: CiliumBGPPeeringPolicy\nmetadata: {name: p}\nspec:\n  virtualRouters:\n" + indent(2, routers)
}

// policyNeighbor is a policy of one virtual router with one neighbour of extra fields.
func policyNeighbor(fields string) string {
	return ciliumPolicy("- localASN: 65001\n  neighbors:\n  - peerAddress: 10.0.0.1/32\n    peerASN: 65002\n" + indent(4, fields))
}

func ciliumKind(kind, spec string) string {
	return "apiVersion: cilium.io/v2\nkind: " + kind + "\nmetadata: {name: x}\nspec:\n" + indent(2, spec)
}

// ciliumInstancePeer is a cluster config of one instance with the given peers.
func ciliumInstancePeers(peers string) string {
	return ciliumKind("CiliumBGPClusterConfig", "bgpInstances:\n- name: i\n  localASN: 65001\n  peers:\n"+indent(2, peers))
}

// ciliumAdvert is an advertisement of the given entries.
func ciliumAdvert(entries string) string {
	return ciliumKind("CiliumBGPAdvertisement", "advertisements:\n"+entries)
}

func metallbKind(kind, name, spec string) string {
	return "apiVersion: metallb.io/v1beta1\nkind: " + kind + "\nmetadata: {name: " + name + ", namespace: metallb-system}\nspec:\n" + indent(2, spec)
}

// metallbPeer is a BGPPeer (v1beta2) of the given extra spec fields.
func metallbPeer(name, fields string) string {
	return "apiVersion: metallb.io/v1beta2\nkind: BGPPeer\nmetadata: {name: " + name + ", namespace: metallb-system}\nspec:\n  myASN: 64512\n  peerASN: 64513\n" + indent(2, fields)
}

func docs(ds ...string) string { return strings.Join(ds, "\n---\n") }

func indent(n int, s string) string {
	pad := strings.Repeat(" ", n)
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = pad + l
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

func many(n int, format string) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, format, i+1, i+1)
	}
	return b.String()
}

// TestWarnings has a case for every warning the converter gives: each input must
// produce warnings containing every string of want.
func TestWarnings(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []string
	}{
		// fields.go: types, unread fields, metadata.
		{"not an object", ciliumKind("CiliumBGPPeerConfig", "timers: 5"), []string{"CiliumBGPPeerConfig/x: spec.timers must be an object: dropped"}},
		{"not a list", "apiVersion: cilium.io/v2alpha1\nkind: CiliumBGPPeeringPolicy\nmetadata: {name: p}\nspec: {virtualRouters: 5}\n", []string{"CiliumBGPPeeringPolicy/p: spec.virtualRouters must be a list: dropped", "has no virtual router kbgp can run: no BGPPeeringPolicy generated"}},
		{"not a string", ciliumKind("CiliumBGPPeerConfig", "authSecretRef: 5"), []string{"spec.authSecretRef must be a string: dropped"}},
		{"not an integer", ciliumKind("CiliumBGPPeerConfig", "ebgpMultihop: four"), []string{"spec.ebgpMultihop must be an integer: dropped"}},
		{"a fraction", ciliumKind("CiliumBGPPeerConfig", "timers: {holdTimeSeconds: 1.5}"), []string{"spec.timers.holdTimeSeconds must be an integer, not 1.5: dropped"}},
		{"out of range", ciliumKind("CiliumBGPPeerConfig", "timers: {holdTimeSeconds: 2}"), []string{"spec.timers.holdTimeSeconds 2 is outside kbgp's range 3..65535: dropped"}},
		{"not a boolean", ciliumKind("CiliumBGPPeerConfig", "gracefulRestart: {enabled: yes please}"), []string{"spec.gracefulRestart.enabled must be true or false: dropped"}},
		{"unknown field", policyNeighbor("description: uplink"), []string{"CiliumBGPPeeringPolicy/p: spec.virtualRouters[0].neighbors[0].description has no kbgp equivalent: dropped"}},
		{"unknown top-level field", ciliumKind("CiliumBGPPeerConfig", "{}") + "data: {a: b}\n", []string{"CiliumBGPPeerConfig/x: data has no kbgp equivalent: dropped"}},
		{"annotations", "apiVersion: cilium.io/v2\nkind: CiliumBGPPeerConfig\nmetadata:\n  name: x\n  uid: u\n  resourceVersion: '1'\n  annotations:\n    kubectl.kubernetes.io/last-applied-configuration: '{}'\n    example.com/owner: team\nspec: {}\nstatus: {conditions: []}\n",
			[]string{`CiliumBGPPeerConfig/x: metadata.annotations["example.com/owner"] has no kbgp equivalent: dropped`}},
		{"no name", "apiVersion: cilium.io/v2\nkind: CiliumBGPPeerConfig\nspec: {}\n", []string{"CiliumBGPPeerConfig/unnamed-1: metadata.name is missing: named unnamed-1"}},

		// convert.go: kinds that are not converted, names taken twice.
		{"kbgp object", "apiVersion: kbgp.io/v1alpha1\nkind: BGPPeerConfig\nmetadata: {name: x}\n", []string{"BGPPeerConfig/x: is already a kbgp object: skipped"}},
		{"L2Advertisement", metallbKind("L2Advertisement", "l2", "{}"), []string{"L2Advertisement/l2: MetalLB's layer 2 mode has no kbgp equivalent"}},
		{"CiliumBGPNodeConfig", ciliumKind("CiliumBGPNodeConfig", "{}"), []string{"CiliumBGPNodeConfig/x: is written by Cilium from the other kinds"}},
		{"no apiVersion", "kind: Thing\nmetadata: {name: t}\n", []string{"Thing/t: has no apiVersion: skipped"}},
		{"other kind", "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n", []string{"Secret/s: apiVersion v1 kind Secret is not converted: skipped"}},
		{"unknown version", "apiVersion: cilium.io/v3\nkind: CiliumBGPPeerConfig\nmetadata: {name: s}\n", []string{"apiVersion cilium.io/v3 kind CiliumBGPPeerConfig is not converted: skipped"}},
		{"same name twice", docs(ciliumKind("CiliumBGPPeerConfig", "{}"), ciliumKind("CiliumBGPPeerConfig", "ebgpMultihop: 2")),
			[]string{"CiliumBGPPeerConfig/x: would generate BGPPeerConfig/x, which CiliumBGPPeerConfig/x generates too: skipped"}},

		// selector.go
		{"bad label value", ciliumKind("CiliumBGPClusterConfig", "nodeSelector: {matchLabels: {rack: 'a b'}}\nbgpInstances: [{name: i, localASN: 1}]"),
			[]string{`spec.nodeSelector.matchLabels.rack is not a valid label value: requirement dropped, the selector selects more`}},
		{"bad operator", ciliumKind("CiliumBGPClusterConfig", "nodeSelector: {matchExpressions: [{key: rack, operator: Gt, values: ['1']}]}\nbgpInstances: [{name: i, localASN: 1}]"),
			[]string{"spec.nodeSelector.matchExpressions[0] is not a requirement kbgp can hold"}},

		// names.go
		{"peer renamed", ciliumInstancePeers("- {name: Tor.A, peerAddress: 10.0.0.1, peerASN: 65002}"),
			[]string{`spec.bgpInstances[0].peers[0].name "Tor.A" is not a DNS label, which kbgp requires of a peer name: renamed tor-a`}},

		// communities.go
		{"bad communities", ciliumAdvert("- advertisementType: PodCIDR\n  attributes:\n    communities:\n      standard: ['70000:1']\n      large: ['1:2']\n      wellKnown: [sometimes]"),
			[]string{`standard[0] "70000:1" is not a standard community`, `large[0] "1:2" is not a large community (a:b:c): dropped`, `wellKnown[0] "sometimes" is not a well-known community: dropped`}},

		// cilium_session.go
		{"secret name", ciliumKind("CiliumBGPPeerConfig", "authSecretRef: Not_A_Name"), []string{`spec.authSecretRef "Not_A_Name" is not a Secret name: dropped`}},
		{"secret namespace", ciliumKind("CiliumBGPPeerConfig", "authSecretRef: md5"), []string{"spec.authSecretRef is converted, but kbgp reads Secret md5 from its agent's namespace (kbgp-system)"}},
		{"families", ciliumKind("CiliumBGPPeerConfig", "families: [{afi: l2vpn, safi: evpn}]"),
			[]string{"spec.families[0] l2vpn/evpn: kbgp negotiates ipv4/unicast and ipv6/unicast only: dropped", "spec.families lists no family kbgp negotiates: kbgp's default, ipv4/unicast and ipv6/unicast, applies"}},
		{"transport local port", ciliumKind("CiliumBGPPeerConfig", "transport: {localPort: 179, peerPort: 179}"), []string{"spec.transport.localPort is not carried over: kbgp would use it as the session's source port, which Cilium did not"}},
		{"family twice", ciliumKind("CiliumBGPPeerConfig", "families: [{afi: ipv4, safi: unicast}, {afi: ipv4, safi: unicast}]"), []string{"spec.families[1] ipv4/unicast is listed twice: dropped"}},

		// cilium_policy.go
		{"long policy name", strings.Replace(policyNeighbor(""), "name: p", "name: "+strings.Repeat("a", 50), 1), []string{"metadata.name is longer than the 47 characters kbgp allows a BGPPeeringPolicy: shortened to " + strings.Repeat("a", 47)}},
		{"router without ASN", ciliumPolicy("- neighbors: [{peerAddress: 10.0.0.1/32, peerASN: 1}]"), []string{"spec.virtualRouters[0] has no localASN in 1..4294967295, which kbgp requires: skipped"}},
		{"router twice", ciliumPolicy("- localASN: 1\n  neighbors: [{peerAddress: 10.0.0.1/32, peerASN: 1}]\n- localASN: 1\n  neighbors: [{peerAddress: 10.0.0.1/32, peerASN: 1}]"),
			[]string{"spec.virtualRouters[1] has the localASN 1 of an earlier virtual router"}},
		{"too many routers", ciliumPolicy(many(17, "- localASN: %d\n  neighbors: [{peerAddress: 10.0.0.%d/32, peerASN: 1}]\n")), []string{"spec.virtualRouters[16] is beyond the 16 virtual routers kbgp allows: skipped"}},
		{"pod IP pools", ciliumPolicy("- localASN: 1\n  podIPPoolSelector: {}\n  neighbors: [{peerAddress: 10.0.0.1/32, peerASN: 1}]"), []string{"spec.virtualRouters[0].podIPPoolSelector has no kbgp equivalent: kbgp announces the Node's spec.podCIDRs only"}},
		{"service kinds", ciliumPolicy("- localASN: 1\n  serviceSelector: {matchLabels: {io.kubernetes.service.name: web}}\n  serviceAdvertisements: [ClusterIP, LoadBalancerIP]\n  neighbors: [{peerAddress: 10.0.0.1/32, peerASN: 1}]"),
			[]string{"spec.virtualRouters[0].serviceAdvertisements[0] ClusterIP: kbgp's BGPPeeringPolicy announces load-balancer IPs only: dropped", "spec.virtualRouters[0].serviceSelector is converted, but kbgp announces a load-balancer IP only inside a LoadBalancerIPPool"}},
		{"no LB kind", ciliumPolicy("- localASN: 1\n  serviceSelector: {}\n  serviceAdvertisements: [ExternalIP]\n  neighbors: [{peerAddress: 10.0.0.1/32, peerASN: 1}]"),
			[]string{"spec.virtualRouters[0].serviceSelector selects Services none of whose addresses kbgp's BGPPeeringPolicy announces: dropped"}},
		{"neighbour twice", ciliumPolicy("- localASN: 1\n  neighbors: [{peerAddress: 10.0.0.1/32, peerASN: 1}, {peerAddress: 10.0.0.1, peerASN: 2}]"),
			[]string{"spec.virtualRouters[0].neighbors[1] has the peerAddress of an earlier neighbour of this virtual router: skipped"}},
		{"too many neighbours", ciliumPolicy("- localASN: 1\n  neighbors:\n" + many(33, "  - {peerAddress: 10.0.1.%d/32, peerASN: %d}\n")), []string{"spec.virtualRouters[0].neighbors[32] is beyond the 32 neighbours kbgp allows per virtual router: skipped"}},
		{"no neighbour left", ciliumPolicy("- localASN: 1\n  neighbors: [{peerAddress: tor-1.example.net, peerASN: 1}]"),
			[]string{`spec.virtualRouters[0].neighbors[0].peerAddress "tor-1.example.net" is not an address (IP, IP/32 or IP/128): neighbour skipped`, "spec.virtualRouters[0] has no neighbour kbgp can peer with: skipped", "has no virtual router kbgp can run"}},
		{"neighbour without address", ciliumPolicy("- localASN: 1\n  neighbors: [{peerASN: 1}]"), []string{"spec.virtualRouters[0].neighbors[0] has no peerAddress: skipped"}},
		{"any peer ASN", ciliumPolicy("- localASN: 1\n  neighbors: [{peerAddress: 10.0.0.1/32, peerASN: 0}]"), []string{`spec.virtualRouters[0].neighbors[0] has no peerASN in 1..4294967295 (kbgp has no "any ASN" 0): skipped`}},
		{"path attributes", policyNeighbor("advertisedPathAttributes: [{selectorType: PodCIDR, localPreference: 1}]"), []string{"spec.virtualRouters[0].neighbors[0].advertisedPathAttributes has no equivalent in kbgp's BGPPeeringPolicy: dropped"}},

		// cilium_v2.go: cluster config
		{"instance without ASN", ciliumKind("CiliumBGPClusterConfig", "bgpInstances: [{name: i}]"),
			[]string{"spec.bgpInstances[0] has no localASN in 1..4294967295, which kbgp requires (it keys instances by localASN): skipped", "has no BGP instance kbgp can run: no BGPClusterConfig generated"}},
		{"instance twice", ciliumKind("CiliumBGPClusterConfig", "bgpInstances: [{name: a, localASN: 1}, {name: b, localASN: 1}]"), []string{"spec.bgpInstances[1] has the localASN 1 of an earlier instance"}},
		{"too many instances", ciliumKind("CiliumBGPClusterConfig", "bgpInstances:\n"+many(17, "- {name: i%d, localASN: %d}\n")), []string{"spec.bgpInstances[16] is beyond the 16 instances kbgp allows: skipped"}},
		{"auto discovery", ciliumInstancePeers("- {name: a, autoDiscovery: {mode: DefaultGateway, defaultGateway: {addressFamily: ipv4}}}"), []string{"spec.bgpInstances[0].peers[0] uses autoDiscovery"}},
		{"peer without address", ciliumInstancePeers("- {name: a, peerASN: 1}"), []string{"spec.bgpInstances[0].peers[0] has no peerAddress, which kbgp requires: skipped"}},
		{"peer with zone", ciliumInstancePeers("- {name: a, peerASN: 1, peerAddress: 'fe80::1%eth0'}"), []string{`has peerAddress "fe80::1%eth0", which is not an IP address kbgp accepts (no zone): skipped`}},
		{"peer ASN from OPEN", ciliumInstancePeers("- {name: a, peerAddress: 10.0.0.1}"), []string{`spec.bgpInstances[0].peers[0] has no peerASN in 1..4294967295: Cilium's peerASN 0 learns any ASN from the OPEN, kbgp's dynamicASN only an internal or an external one`}},
		{"peer name twice", ciliumInstancePeers("- {name: a, peerASN: 1, peerAddress: 10.0.0.1}\n- {name: a, peerASN: 1, peerAddress: 10.0.0.2}"), []string{"spec.bgpInstances[0].peers[1] has the name a of an earlier peer of this instance: skipped"}},
		{"peer address twice", ciliumInstancePeers("- {name: a, peerASN: 1, peerAddress: 10.0.0.1}\n- {name: b, peerASN: 1, peerAddress: 10.0.0.1}"), []string{"spec.bgpInstances[0].peers[1] has the peerAddress of earlier peer a of this instance: skipped"}},
		{"too many peers", ciliumInstancePeers(many(33, "- {name: p%d, peerASN: 1, peerAddress: 10.0.0.%d}\n")), []string{"spec.bgpInstances[0].peers[32] is beyond the 32 peers kbgp allows per instance: skipped"}},
		{"peer config kind", ciliumInstancePeers("- {name: a, peerASN: 1, peerAddress: 10.0.0.1, peerConfigRef: {group: example.com, kind: Other, name: o}}"), []string{"spec.bgpInstances[0].peers[0].peerConfigRef.kind Other: kbgp peers refer to BGPPeerConfigs only: peerConfigRef dropped"}},

		// cilium_v2.go: advertisements
		{"PodCIDR with selector", ciliumAdvert("- advertisementType: PodCIDR\n  selector: {}\n  service: {addresses: [ClusterIP]}"),
			[]string{"spec.advertisements[0].selector is not used for PodCIDR advertisements", "spec.advertisements[0].service is not used for PodCIDR advertisements: dropped"}},
		{"Service without addresses", ciliumAdvert("- advertisementType: Service\n  service: {addresses: [NodeIP]}\n  selector: {}"),
			[]string{`spec.advertisements[0].service.addresses[0] "NodeIP" is not a Service address kbgp announces: dropped`, "spec.advertisements[0] announces no Service address kbgp knows", "has no advertisement kbgp can make: no BGPAdvertisement generated"}},
		{"aggregation", ciliumAdvert("- advertisementType: Service\n  service: {addresses: [ClusterIP], aggregationLengthIPv4: 24, aggregationLengthIPv6: 64}\n  selector: {}"),
			[]string{"spec.advertisements[0].service.aggregationLengthIPv4 24 is not converted: kbgp aggregates only under its own rules",
				"this entry announces aggregates instead of host routes (/32): entry skipped; write it as a kbgp advertisement with service.aggregationLengthIPv4",
				"spec.advertisements[0].service.aggregationLengthIPv6 64 is not converted", "instead of host routes (/128)"}},
		{"Service without selector", ciliumAdvert("- advertisementType: Service\n  service: {addresses: [ClusterIP]}"),
			[]string{"spec.advertisements[0] has no selector, so Cilium announces no Service with it (a kbgp advertisement without selector would announce every Service): skipped"}},
		{"Interface type", ciliumAdvert("- advertisementType: Interface\n  interface: {name: lo}"), []string{`spec.advertisements[0] is of advertisementType "Interface", which kbgp does not have`}},
		{"LB and external IPs", ciliumAdvert("- advertisementType: Service\n  service: {addresses: [LoadBalancerIP, ExternalIP]}\n  selector: {}"),
			[]string{"spec.advertisements[0].service.addresses[0] is converted, but kbgp announces a load-balancer IP only inside", "spec.advertisements[0].service.addresses[1] is converted, but kbgp announces an external IP only inside"}},
		{"too many entries", ciliumAdvert(many(33, "- {advertisementType: PodCIDR, attributes: {localPreference: %d}} # %d\n")), []string{"spec.advertisements has more than the 32 entries kbgp allows: the rest dropped"}},

		// cilium_v2.go: overrides
		{"override of unknown instance", ciliumKind("CiliumBGPNodeConfigOverride", "bgpInstances: [{name: i, routerID: 10.0.0.1}]"),
			[]string{`spec.bgpInstances[0] names instance "i", which no CiliumBGPClusterConfig of the input has with a localASN`, "overrides no instance kbgp can key: no BGPNodeConfigOverride generated"}},
		{"override of ambiguous instance", docs(ciliumKind("CiliumBGPClusterConfig", "bgpInstances: [{name: i, localASN: 1}]"),
			strings.Replace(ciliumKind("CiliumBGPClusterConfig", "bgpInstances: [{name: i, localASN: 2}]"), "name: x", "name: y", 1),
			strings.Replace(ciliumKind("CiliumBGPNodeConfigOverride", "bgpInstances: [{name: i, localPort: 1790}]"), "name: x", "name: node-1", 1)),
			[]string{`spec.bgpInstances[0] names instance "i", which the CiliumBGPClusterConfigs of the input have with several local ASNs [1 2]`}},
		{"override details", docs(ciliumKind("CiliumBGPClusterConfig", "bgpInstances: [{name: i, localASN: 1}]"),
			strings.Replace(ciliumKind("CiliumBGPNodeConfigOverride", "bgpInstances:\n- {name: i, routerID: '::1', peers: [{name: a, localAddress: nowhere, localPort: 1790}]}\n- {name: i}"), "name: x", "name: node-1", 1)),
			[]string{`spec.bgpInstances[0].routerID "::1" is not an IPv4 address kbgp accepts as router ID: dropped`,
				`spec.bgpInstances[0].peers[0].localAddress "nowhere" is not an IP address kbgp accepts (no zone): dropped`,
				"spec.bgpInstances[0].peers[0].localPort has no effect in Cilium (deprecated), while kbgp would use it as the session's source port: dropped",
				`spec.bgpInstances[1] overrides instance "i" (localASN 1) a second time: skipped`}},

		// cilium_pool.go
		{"Cilium pool blocks", "apiVersion: cilium.io/v2\nkind: CiliumLoadBalancerIPPool\nmetadata: {name: lb}\nspec:\n  allowFirstLastIPs: maybe\n  blocks: [{cidr: 10.0.0.0/33}, {cidr: 10.0.0.7/30}, {stop: 10.0.0.9}, {start: 10.0.0.9, stop: 10.0.0.1}]\n",
			[]string{`CiliumLoadBalancerIPPool/lb: spec.allowFirstLastIPs "maybe" is neither Yes nor No: dropped, every address of the CIDRs is handed out`,
				`spec.blocks[0].cidr "10.0.0.0/33" is not a CIDR: dropped`, `spec.blocks[1].cidr "10.0.0.7/30" has host bits set: written as 10.0.0.4/30, the network Cilium uses`,
				"spec.blocks[2] is neither a cidr nor a start and stop: dropped", `spec.blocks[3] "10.0.0.9-10.0.0.1" is not a range of one family with its first address before its last: dropped`,
				"CiliumLoadBalancerIPPool/lb: is converted to a LoadBalancerIPPool; once one exists kbgp's operator hands out the load-balancer addresses, so apply the pools only after Cilium's LB-IPAM has stopped"}},
		{"Cilium pool without block", "apiVersion: cilium.io/v2alpha1\nkind: CiliumLoadBalancerIPPool\nmetadata: {name: lb}\nspec: {blocks: [{cidr: nowhere}]}\n",
			[]string{"CiliumLoadBalancerIPPool/lb: has no address kbgp can use: no LoadBalancerIPPool generated"}},
		{"Cilium LB advertisement without pools", ciliumAdvert("- advertisementType: Service\n  service: {addresses: [LoadBalancerIP]}\n  selector: {}"),
			[]string{"spec.advertisements[0].service.addresses[0] is converted, but kbgp announces a load-balancer IP only inside a LoadBalancerIPPool or the advertisement's service.loadBalancerIPPrefixes, which Cilium does not have: convert your CiliumLoadBalancerIPPools together with the advertisement"}},
		{"Cilium pools of many prefixes", docs("apiVersion: cilium.io/v2\nkind: CiliumLoadBalancerIPPool\nmetadata: {name: lb}\nspec:\n  blocks: [{start: 10.0.0.1, stop: 10.0.0.254}, {start: 10.0.1.1, stop: 10.0.1.254}, {start: 10.0.2.1, stop: 10.0.2.254}]\n",
			ciliumAdvert("- advertisementType: Service\n  service: {addresses: [LoadBalancerIP]}\n  selector: {}")),
			[]string{"CiliumBGPAdvertisement/x: selects pools of 42 prefixes, more than the 32 loadBalancerIPPrefixes an advertisement lists: the rest dropped"}},

		// metallb.go: Community and BFDProfile
		{"community aliases", docs(metallbKind("Community", "c", "communities: [{name: big, value: 'large:1:2'}, {name: odd, value: '12345'}]"),
			metallbKind("BGPAdvertisement", "a", "communities: [big, odd]")),
			[]string{`Community/c: spec.communities[0] value "large:1:2" is not a large community (large:a:b:c): alias dropped`,
				`Community/c: spec.communities[1] value "12345" is not a community (a:b or large:a:b:c): alias dropped`,
				"Community/c: has no alias any BGPAdvertisement of the input uses: nothing generated",
				`BGPAdvertisement/a: spec.communities[0] "big" is neither a community nor an alias of a Community object in the input: dropped`}},
		{"labels of a lookup kind", strings.Replace(metallbKind("BFDProfile", "fast", "{}"), "namespace: metallb-system", "labels: {a: b}", 1),
			[]string{"BFDProfile/fast: metadata.labels are not carried over: this kind produces no kbgp object of its own"}},
		{"unused BFD profile", metallbKind("BFDProfile", "fast", "receiveInterval: 100"), []string{"BFDProfile/fast: is used by no BGPPeer of the input: nothing generated"}},
		{"missing BFD profile", metallbPeer("p", "peerAddress: 10.0.0.1\nbfdProfile: fast"), []string{"BGPPeer/p: spec.bfdProfile names BFDProfile fast, which is not in the input: BFD enabled with kbgp's defaults"}},
		{"BFD profile fields", docs(metallbKind("BFDProfile", "fast", "receiveInterval: 5\ndetectMultiplier: 3\nechoMode: true\npassiveMode: true\nechoInterval: 50\nminimumTtl: 254"), metallbPeer("p", "peerAddress: 10.0.0.1\nbfdProfile: fast")),
			[]string{"BFDProfile/fast: spec.receiveInterval 5 is outside kbgp's range 10..60000: dropped",
				"BFDProfile/fast: spec.echoMode has no kbgp equivalent", "BFDProfile/fast: spec.passiveMode has no kbgp equivalent",
				"BFDProfile/fast: spec.echoInterval has no kbgp equivalent (no echo mode): dropped", "BFDProfile/fast: spec.minimumTtl has no kbgp equivalent"}},

		// metallb_pool.go
		{"pool addresses", metallbKind("IPAddressPool", "p", "addresses: [10.0.0.9-10.0.0.1, '10.0.0.1-2001:db8::1', nonsense, 10.0.0.7/30]"),
			[]string{`spec.addresses[0] "10.0.0.9-10.0.0.1" is not a range of one family with its first address before its last: dropped`,
				`spec.addresses[1] "10.0.0.1-2001:db8::1" is not a range of one family`, `spec.addresses[2] "nonsense" is neither a CIDR nor a range: dropped`,
				`spec.addresses[3] "10.0.0.7/30" has host bits set: written as 10.0.0.4/30, the network MetalLB uses`,
				"IPAddressPool/p: is converted to a LoadBalancerIPPool; once one exists kbgp's operator hands out the load-balancer addresses"}},
		{"too many blocks", metallbKind("IPAddressPool", "p", "addresses:\n"+many(65, "- 10.%d.0.0/24 # %d\n")), []string{"spec.addresses[64] is beyond the 64 blocks a LoadBalancerIPPool holds: dropped"}},
		{"no block", metallbKind("IPAddressPool", "p", "addresses: [nonsense]"), []string{"IPAddressPool/p: has no address kbgp can use: no LoadBalancerIPPool generated"}},
		{"auto assign", metallbKind("IPAddressPool", "p", "addresses: [10.0.0.0/24]\nautoAssign: false"), []string{"spec.autoAssign false is converted to disabled: true, which also refuses the addresses Services request by name"}},
		{"service allocation", metallbKind("IPAddressPool", "p", "addresses: [10.0.0.0/24]\nserviceAllocation:\n  priority: 1\n  namespaceSelectors: [{matchLabels: {a: b}}]\n  serviceSelectors: [{matchLabels: {a: b}}, {matchLabels: {c: d}}]"),
			[]string{"spec.serviceAllocation.priority has no kbgp equivalent", "spec.serviceAllocation.serviceSelectors has 2 selectors, any of which MetalLB accepts; kbgp's serviceSelector is one selector: dropped, the pool serves Services these do not select too",
				"spec.serviceAllocation.namespaceSelectors selects namespaces by their labels, which kbgp cannot: dropped, the pool serves Services of every namespace"}},

		// metallb_advert.go
		{"aggregation lengths", metallbKind("BGPAdvertisement", "a", "aggregationLength: 24\naggregationLengthV6: 64\nnodeSelectors: [{}]"),
			[]string{"spec.aggregationLength 24 is not converted: kbgp aggregates only under its own rules", "this advertisement announces aggregates instead of host routes (/32): no BGPAdvertisement generated",
				"spec.aggregationLengthV6 64 is not converted", "instead of host routes (/128)",
				"spec.nodeSelectors has no kbgp equivalent: kbgp has no per-advertisement node selection"}},
		{"advertisement communities", metallbKind("BGPAdvertisement", "a", "communities: ['large:1:2', no-such-alias]"),
			[]string{`spec.communities[0] "large:1:2" is not a large community (large:a:b:c): dropped`, `spec.communities[1] "no-such-alias" is neither a community nor an alias`}},
		{"pool selector", metallbKind("BGPAdvertisement", "a", "ipAddressPoolSelectors: [{matchLabels: {'a b': c}}]"), []string{"spec.ipAddressPoolSelectors[0] is not a valid label selector"}},
		{"pools and peers", metallbKind("BGPAdvertisement", "a", "ipAddressPools: [gone]\npeers: [nobody]"),
			[]string{"spec.ipAddressPools[0] names IPAddressPool gone, which is not in the input", "BGPAdvertisement/a: has no IPAddressPool of the input to take address ranges from",
				"spec.peers[0] names BGPPeer nobody, which is not in the input"}},
		{"pool by label", docs(metallbKind("IPAddressPool", "p", "addresses: [10.0.0.0/24]"), metallbKind("BGPAdvertisement", "a", "ipAddressPoolSelectors: [{matchLabels: {tier: gold}}]")),
			[]string{"BGPAdvertisement/a: has no IPAddressPool of the input to take address ranges from"}},
		{"pool by label matches", docs(strings.Replace(metallbKind("IPAddressPool", "p", "addresses: [10.0.0.0/24]"), "namespace: metallb-system", "labels: {tier: gold}", 1), metallbKind("BGPAdvertisement", "a", "ipAddressPoolSelectors: [{matchLabels: {tier: gold}}]")),
			[]string{"BGPAdvertisement/a: spec.ipAddressPoolSelectors is converted approximately: kbgp selects Services by label, not by pool"}},
		{"too many prefixes", docs(metallbKind("IPAddressPool", "p", "addresses: [10.0.0.1-10.0.0.254, 10.0.1.1-10.0.1.254, 10.0.2.1-10.0.2.254]"), metallbKind("BGPAdvertisement", "a", "{}")),
			[]string{"BGPAdvertisement/a: selects pools of 42 prefixes, more than the 32 loadBalancerIPPrefixes an advertisement lists: the rest dropped"}},

		// metallb_peer.go
		{"no myASN", "apiVersion: metallb.io/v1beta2\nkind: BGPPeer\nmetadata: {name: p}\nspec: {peerASN: 1, peerAddress: 10.0.0.1}\n", []string{"BGPPeer/p: has no myASN in 1..4294967295, which kbgp requires: no kbgp peer generated"}},
		{"no peerASN", metallbPeer("p", "peerAddress: 10.0.0.1\npeerASN: 0"),
			[]string{"spec.peerASN 0 is outside kbgp's range", "BGPPeer/p: has neither a peerASN in 1..4294967295 nor a dynamicASN internal or external: no kbgp peer generated"}},
		{"peerASN and dynamicASN", metallbPeer("p", "peerAddress: 10.0.0.1\ndynamicASN: external\npeerASN: 65002"),
			[]string{"spec.dynamicASN is ignored beside peerASN (MetalLB refuses both): dropped"}},
		{"unnumbered, no interface name", metallbPeer("p", "interface: a-very-long-link-name"), []string{`BGPPeer/p: has interface "a-very-long-link-name", which is not a Linux interface name`}},
		{"neither address nor interface", metallbPeer("p", "peerPort: 1790"), []string{"BGPPeer/p: has no peerAddress kbgp accepts (an IP address without zone) nor an interface"}},
		{"local ASN", metallbPeer("p", "peerAddress: 10.0.0.1\nlocalASN: 65410"), []string{"spec.localASN is converted approximately: kbgp has no local-as; the peer is put in a BGP instance of localASN 65410 instead of 64512"}},
		{"bad values", metallbPeer("p.one", "peerAddress: 10.0.0.1\nrouterID: 127.0.0.1\nsourceAddress: here\nvrf: a-very-long-vrf-name\nholdTime: soon\nkeepaliveTime: 1500ms\nconnectTime: 100000s"),
			[]string{`metadata.name "p.one" is not a DNS label, which kbgp requires of a peer name: renamed p-one`, `spec.routerID "127.0.0.1" is not an IPv4 address kbgp accepts as router ID: dropped`, `spec.sourceAddress "here" is not an IP address: dropped`,
				`spec.vrf "a-very-long-vrf-name" is not a Linux interface name (at most 15 characters): dropped`, `spec.holdTime "soon" is not a duration: dropped`,
				"spec.keepaliveTime 1500ms is not a whole number of seconds, which kbgp's timers are: rounded down to 1s", "spec.connectTime 100000s is outside kbgp's range 1..65535 s: dropped, kbgp's default applies"}},
		{"plain password", metallbPeer("p", "peerAddress: 10.0.0.1\npassword: s3cret"),
			[]string{"spec.password is a plain-text password, and kbgp reads TCP MD5 passwords from Secrets only: not copied; create the Secret the peer config now names: kubectl -n kbgp-system create secret generic p-bgp-password --from-literal=password='<the password>'"}},
		{"password and secret", metallbPeer("p", "peerAddress: 10.0.0.1\npassword: s3cret\npasswordSecret: {name: md5, namespace: metallb-system}"),
			[]string{"spec.passwordSecret is converted, but kbgp reads Secret md5 from its agent's namespace (kbgp-system), with the password under the key password as MetalLB does: copy Secret metallb-system/md5 there",
				"spec.password is a plain-text password, which kbgp does not take; passwordSecret is used instead: dropped"}},
		{"secret name", metallbPeer("p", "peerAddress: 10.0.0.1\npasswordSecret: {name: Bad_Name}"), []string{`spec.passwordSecret.name "Bad_Name" is not a Secret name: dropped`}},
		{"multihop", metallbPeer("p", "peerAddress: 10.0.0.1\nebgpMultiHop: true"), []string{"spec.ebgpMultiHop true is converted to ebgpMultihop: 255, the TTL FRR uses for it"}},
		{"source address of many nodes", metallbPeer("p", "peerAddress: 10.0.0.1\nsourceAddress: 10.0.0.2\nnodeSelectors: [{matchLabels: {rack: a}}]"),
			[]string{"spec.sourceAddress is per node, and this peer is not pinned to nodes by kubernetes.io/hostname: dropped"}},
		{"source address of one node", metallbPeer("p", "peerAddress: 10.0.0.1\nsourceAddress: 10.0.0.2\nnodeSelectors: [{matchLabels: {kubernetes.io/hostname: n1}}, {matchLabels: {kubernetes.io/hostname: n2}}]"),
			[]string{"spec.sourceAddress is converted to a BGPNodeConfigOverride for node n1, n2, assuming the node is named after its kubernetes.io/hostname label"}},
		{"too many instances", many(17, metallbPeer("p%d", "peerAddress: 10.0.0.1\nlocalASN: %d")+"---\n"), []string{"BGPPeer/p17: needs a BGP instance beyond the 16 a BGPClusterConfig holds: left out of it"}},
		{"same peer name", docs(metallbPeer("p", "peerAddress: 10.0.0.1"), strings.Replace(metallbPeer("p", "peerAddress: 10.0.0.2"), "metallb-system", "other", 1)),
			[]string{"BGPPeer/p: has the peer name p of another BGPPeer with the same local ASN and nodes: left out of the cluster config", "BGPPeer/p: would generate BGPPeerConfig/p, which BGPPeer/p generates too: skipped"}},
		{"same peer address", docs(metallbPeer("a", "peerAddress: 10.0.0.1"), metallbPeer("b", "peerAddress: 10.0.0.1")),
			[]string{"BGPPeer/b: has the address and VRF of BGPPeer a, with the same local ASN and nodes, and kbgp peers once per address: left out of the cluster config"}},
		{"too many peers", many(33, metallbPeer("p%d", "peerAddress: 10.0.0.%d")+"---\n"), []string{"BGPPeer/p33: is beyond the 32 peers a BGP instance holds: left out of the cluster config"}},
		{"router IDs differ", docs(metallbPeer("a", "peerAddress: 10.0.0.1\nrouterID: 10.1.1.1"), metallbPeer("b", "peerAddress: 10.0.0.2\nrouterID: 10.1.1.2")),
			[]string{"BGPPeer/b: spec.routerID differs from the router ID 10.1.1.1 of another BGPPeer of the instance, and kbgp has one router ID per instance: dropped"}},
		{"every node and some", docs(metallbPeer("a", "peerAddress: 10.0.0.1"), metallbPeer("b", "peerAddress: 10.0.0.2\nnodeSelectors: [{matchLabels: {rack: a, row: '1'}}]")),
			[]string{"BGPPeer/a: peers from every node, and the BGPClusterConfig of such peers would select the nodes of the other BGPClusterConfigs too"}},
		{"overlapping selectors", docs(metallbPeer("a", "peerAddress: 10.0.0.1\nnodeSelectors: [{matchLabels: {rack: a}}]"), metallbPeer("b", "peerAddress: 10.0.0.2\nnodeSelectors: [{matchLabels: {row: '1'}}]")),
			[]string{"BGPPeer/a: MetalLB peers a node with every BGPPeer that selects it, kbgp runs the one BGPClusterConfig that selects it (the oldest); these BGPClusterConfigs, generated per node selector with different peers, may select the same nodes: a and b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, warnings, err := Convert([]byte(tt.input))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, w := range warnings {
				got = append(got, w.String())
			}
			all := strings.Join(got, "\n")
			for _, want := range tt.want {
				if !strings.Contains(all, want) {
					t.Errorf("no warning contains %q; warnings:\n%s", want, all)
				}
			}
		})
	}
}
