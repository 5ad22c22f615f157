package integration

import (
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

const (
	clusterConfig = "BGPClusterConfig"
	peerConfig    = "BGPPeerConfig"
	advertisement = "BGPAdvertisement"
	override      = "BGPNodeConfigOverride"
	nodeConfig    = "BGPNodeConfig"
	lbPool        = "LoadBalancerIPPool"
	policy        = "BGPPeeringPolicy"
)

// invalidCase is an object the API server must refuse. field is the path the error
// must name; message is a fragment of the reason.
type invalidCase struct {
	name    string
	kind    string
	spec    string
	field   string
	message string
}

const (
	msgRouterIDForm = "routerID must be an IPv4 address or exactly one of ${NODE_IP}"
	msgRouterIDKey  = "the annotation key must be a Kubernetes annotation key"
	msgRouterIDUse  = "routerID must not be a loopback, link-local, unspecified, multicast or broadcast address"
	msgPoolSize     = "routerIDPool must hold at least 256 addresses"
	msgPeerUnique   = "(peerAddress, vrf) must be unique within an instance"
)

var invalidObjects = []invalidCase{
	// ASNs and ports.
	{"localASN zero", clusterConfig, `{bgpInstances: [{localASN: 0}]}`, "spec.bgpInstances[0].localASN", "greater than or equal to 1"},
	{"localASN above 32 bits", clusterConfig, `{bgpInstances: [{localASN: 4294967296}]}`, "spec.bgpInstances[0].localASN", "less than or equal to 4294967295"},
	{"peerASN zero", clusterConfig, clusterPeers(`- {name: a, peerAddress: 10.1.1.1, peerASN: 0}`), "spec.bgpInstances[0].peers[0].peerASN", "greater than or equal to 1"},
	{"listen address not an IP", clusterConfig, clusterInstance("listenAddresses: [10.1.1.300]"), "spec.bgpInstances[0].listenAddresses[0]", "must be an IPv4 or IPv6 address"},
	{"BMP collector not an IP", clusterConfig, clusterInstance("bmpCollectors: [{address: collector.example}]"), "spec.bgpInstances[0].bmpCollectors[0].address", "must be an IPv4 or IPv6 address"},
	{"BMP route monitoring unknown", clusterConfig, clusterInstance("bmpCollectors: [{address: 10.0.0.50, routeMonitoring: AdjRIBOut}]"), "spec.bgpInstances[0].bmpCollectors[0].routeMonitoring", "Unsupported value"},
	{"BMP collector twice", clusterConfig, clusterInstance("bmpCollectors: [{address: 10.0.0.50}, {address: 10.0.0.50, port: 1790}]"), "spec.bgpInstances[0].bmpCollectors[1]", "Duplicate value"},
	{"localPort zero", clusterConfig, clusterInstance("localPort: 0"), "spec.bgpInstances[0].localPort", "greater than or equal to 1"},
	{"localPort above 65535", clusterConfig, clusterInstance("localPort: 70000"), "spec.bgpInstances[0].localPort", "less than or equal to 65535"},
	{"no instances", clusterConfig, `{bgpInstances: []}`, "spec.bgpInstances", "at least 1 items"},
	{"duplicate localASN", clusterConfig, `{bgpInstances: [{localASN: 65001}, {localASN: 65001}]}`, "spec.bgpInstances[1]", "Duplicate value"},
	{"seventeen instances", clusterConfig, seventeenInstances(), "spec.bgpInstances", "at most 16 items"},

	// Peers.
	{"peerAddress out of range", clusterConfig, clusterPeers(`- {name: a, peerAddress: 10.1.1.300, peerASN: 65002}`), "spec.bgpInstances[0].peers[0].peerAddress", "peerAddress must be an IPv4 or IPv6 address"},
	{"peerAddress hostname", clusterConfig, clusterPeers(`- {name: a, peerAddress: tor-a.example.com, peerASN: 65002}`), "spec.bgpInstances[0].peers[0].peerAddress", "peerAddress must be an IPv4 or IPv6 address"},
	{"peerAddress with zone", clusterConfig, clusterPeers(`- {name: a, peerAddress: "fe80::1%eth0", peerASN: 65002}`), "spec.bgpInstances[0].peers[0].peerAddress", "peerAddress must be an IPv4 or IPv6 address"},
	{"peer with an address and an interface", clusterConfig, clusterPeers(`- {name: a, peerAddress: 10.1.1.1, interface: eth1, peerASN: 65002}`), "spec.bgpInstances[0].peers[0]", "exactly one of peerAddress, interface and autoDiscovery must be set"},
	{"peer with neither address nor interface", clusterConfig, clusterPeers(`- {name: a, peerASN: 65002}`), "spec.bgpInstances[0].peers[0]", "exactly one of peerAddress, interface and autoDiscovery must be set"},
	{"peer with an ASN and a dynamic one", clusterConfig, clusterPeers(`- {name: a, interface: eth1, peerASN: 65002, dynamicASN: External}`), "spec.bgpInstances[0].peers[0]", "exactly one of peerASN and dynamicASN must be set"},
	{"peer without an ASN", clusterConfig, clusterPeers(`- {name: a, interface: eth1}`), "spec.bgpInstances[0].peers[0]", "exactly one of peerASN and dynamicASN must be set"},
	{"dynamicASN unknown", clusterConfig, clusterPeers(`- {name: a, interface: eth1, dynamicASN: Any}`), "spec.bgpInstances[0].peers[0].dynamicASN", "Unsupported value"},
	{"interface not an interface name", clusterConfig, clusterPeers(`- {name: a, interface: "eth 1", peerASN: 65002}`), "spec.bgpInstances[0].peers[0].interface", "interface must be a Linux interface name"},
	{"peer with an address and a discovered one", clusterConfig, clusterPeers(`- {name: a, peerAddress: 10.1.1.1, autoDiscovery: {mode: DefaultGateway, defaultGateway: {addressFamily: ipv4}}, peerASN: 65002}`), "spec.bgpInstances[0].peers[0]", "exactly one of peerAddress, interface and autoDiscovery must be set"},
	{"default gateway mode without its family", clusterConfig, clusterPeers(`- {name: a, autoDiscovery: {mode: DefaultGateway}, peerASN: 65002}`), "spec.bgpInstances[0].peers[0].autoDiscovery", "mode DefaultGateway needs defaultGateway"},
	{"discovery mode unknown", clusterConfig, clusterPeers(`- {name: a, autoDiscovery: {mode: Unnumbered}, peerASN: 65002}`), "spec.bgpInstances[0].peers[0].autoDiscovery.mode", "Unsupported value"},
	{"two peers at the IPv4 default gateway", clusterConfig, clusterPeers("- {name: a, autoDiscovery: {mode: DefaultGateway, defaultGateway: {addressFamily: ipv4}}, peerASN: 65002}\n- {name: b, autoDiscovery: {mode: DefaultGateway, defaultGateway: {addressFamily: ipv4}}, peerASN: 65003}"), "spec.bgpInstances[0].peers", "at most one peer of an instance is the default gateway of an address family"},
	{"one interface, two peers", clusterConfig, clusterPeers("- {name: a, interface: eth1, peerASN: 65002}\n- {name: b, interface: eth1, peerASN: 65003}"), "spec.bgpInstances[0].peers", "an interface carries at most one peer of an instance"},
	{"node config one interface, two peers", nodeConfig, clusterPeers("- {name: a, interface: eth1, peerASN: 65002}\n- {name: b, interface: eth1, peerASN: 65003}"), "spec.bgpInstances[0].peers", "an interface carries at most one peer of an instance"},
	{"peer name not a DNS label", clusterConfig, clusterPeers(`- {name: Tor_A, peerAddress: 10.1.1.1, peerASN: 65002}`), "spec.bgpInstances[0].peers[0].name", "name must be a DNS label"},
	{"duplicate peer name", clusterConfig, clusterPeers("- {name: a, peerAddress: 10.1.1.1, peerASN: 65002}\n- {name: a, peerAddress: 10.1.1.2, peerASN: 65002}"), "spec.bgpInstances[0].peers[1]", "Duplicate value"},
	{"same address twice in default VRF", clusterConfig, clusterPeers("- {name: a, peerAddress: 10.1.1.1, peerASN: 65002}\n- {name: b, peerAddress: 10.1.1.1, peerASN: 65003}"), "spec.bgpInstances[0].peers", msgPeerUnique},
	{"same address twice in one VRF", clusterConfig, clusterPeers("- {name: a, peerAddress: 10.1.1.1, peerASN: 65002, vrf: red}\n- {name: b, peerAddress: 10.1.1.1, peerASN: 65003, vrf: red}"), "spec.bgpInstances[0].peers", msgPeerUnique},
	{"same IPv6 address written two ways", clusterConfig, clusterPeers("- {name: a, peerAddress: \"2001:db8::1\", peerASN: 65002}\n- {name: b, peerAddress: \"2001:DB8:0:0::1\", peerASN: 65003}"), "spec.bgpInstances[0].peers", msgPeerUnique},
	{"vrf longer than an interface name", clusterConfig, clusterPeers(`- {name: a, peerAddress: 10.1.1.1, peerASN: 65002, vrf: sixteen-chars-xx}`), "spec.bgpInstances[0].peers[0].vrf", "may not be more than 15"},
	{"vrf with a slash", clusterConfig, clusterPeers(`- {name: a, peerAddress: 10.1.1.1, peerASN: 65002, vrf: red/blue}`), "spec.bgpInstances[0].peers[0].vrf", "vrf must be a Linux interface name"},
	{"peerConfigRef not a name", clusterConfig, clusterPeers(`- {name: a, peerAddress: 10.1.1.1, peerASN: 65002, peerConfigRef: {name: "Rack 1"}}`), "spec.bgpInstances[0].peers[0].peerConfigRef.name", "peerConfigRef.name must be a DNS subdomain name"},

	// Mesh.
	{"mesh without localPort", clusterConfig, clusterInstance("mesh: {enabled: true}"), "spec.bgpInstances[0]", "the instance must listen (set localPort)"},
	{"mesh cluster ID IPv6", clusterConfig, clusterInstance("localPort: 179\nmesh: {enabled: true, routeReflectors: {nodeSelector: {}, clusterID: \"2001:db8::1\"}}"), "spec.bgpInstances[0].mesh.routeReflectors.clusterID", "clusterID must be an IPv4 address"},

	// Router IDs, including the security cases of docs/router-id.md.
	{"routerID IPv6", clusterConfig, clusterRouterID("2001:db8::1"), "spec.bgpInstances[0].routerID", "routerID must be an IPv4 address, not IPv6"},
	{"routerID loopback", clusterConfig, clusterRouterID("127.0.0.1"), "spec.bgpInstances[0].routerID", msgRouterIDUse},
	{"routerID link-local", clusterConfig, clusterRouterID("169.254.1.1"), "spec.bgpInstances[0].routerID", msgRouterIDUse},
	{"routerID unspecified", clusterConfig, clusterRouterID("0.0.0.0"), "spec.bgpInstances[0].routerID", msgRouterIDUse},
	{"routerID multicast", clusterConfig, clusterRouterID("224.0.0.5"), "spec.bgpInstances[0].routerID", msgRouterIDUse},
	{"routerID broadcast", clusterConfig, clusterRouterID("255.255.255.255"), "spec.bgpInstances[0].routerID", msgRouterIDUse},
	{"routerID template injection", clusterConfig, clusterRouterID("${NODE_IP}; rm -rf /"), "spec.bgpInstances[0].routerID", msgRouterIDForm},
	{"routerID two templates", clusterConfig, clusterRouterID("${NODE_IP}${NODE_IPV4}"), "spec.bgpInstances[0].routerID", msgRouterIDForm},
	{"routerID unknown template", clusterConfig, clusterRouterID("${NODE_HOSTNAME}"), "spec.bgpInstances[0].routerID", msgRouterIDForm},
	{"routerID shell expansion", clusterConfig, clusterRouterID("$(hostname -i)"), "spec.bgpInstances[0].routerID", msgRouterIDForm},
	{"routerID empty annotation key", clusterConfig, clusterRouterID("${node.annotations['']}"), "spec.bgpInstances[0].routerID", msgRouterIDForm},
	{"routerID annotation path traversal", clusterConfig, clusterRouterID("${node.annotations['../../etc/passwd']}"), "spec.bgpInstances[0].routerID", msgRouterIDKey},
	{"routerID annotation key with NUL", clusterConfig, clusterRouterID("${node.annotations['key\x00hidden']}"), "spec.bgpInstances[0].routerID", msgRouterIDKey},
	{"routerID annotation key with newline", clusterConfig, clusterRouterID("${node.annotations['key\nhidden']}"), "spec.bgpInstances[0].routerID", msgRouterIDKey},
	{"routerID annotation key with quote", clusterConfig, clusterRouterID("${node.annotations['a']}' + '${NODE_IP}']}"), "spec.bgpInstances[0].routerID", msgRouterIDKey},
	{"routerID annotation key non-ASCII", clusterConfig, clusterRouterID("${node.annotations['kbgp.io/schlüssel']}"), "spec.bgpInstances[0].routerID", msgRouterIDKey},
	{"routerID annotation name over 63", clusterConfig, clusterRouterID("${node.annotations['kbgp.io/" + strings.Repeat("n", 64) + "']}"), "spec.bgpInstances[0].routerID", msgRouterIDKey},
	{"routerID 10 KB", clusterConfig, clusterRouterID("${node.annotations['" + strings.Repeat("k", 10*1024) + "']}"), "spec.bgpInstances[0].routerID", "may not be more than 256"},

	// Router ID pools.
	{"routerIDPool /25", clusterConfig, clusterInstance("routerIDPool: 10.255.0.0/25"), "spec.bgpInstances[0].routerIDPool", msgPoolSize},
	{"routerIDPool /31", clusterConfig, clusterInstance("routerIDPool: 10.255.0.0/31"), "spec.bgpInstances[0].routerIDPool", msgPoolSize},
	{"routerIDPool /32", clusterConfig, clusterInstance("routerIDPool: 10.255.0.1/32"), "spec.bgpInstances[0].routerIDPool", msgPoolSize},
	{"routerIDPool IPv6", clusterConfig, clusterInstance(`routerIDPool: "2001:db8::/64"`), "spec.bgpInstances[0].routerIDPool", "routerIDPool must be an IPv4 CIDR"},
	{"routerIDPool without length", clusterConfig, clusterInstance("routerIDPool: 10.255.0.0"), "spec.bgpInstances[0].routerIDPool", "routerIDPool must be an IPv4 CIDR"},
	{"routerIDPool host bits", clusterConfig, clusterInstance("routerIDPool: 10.255.1.0/16"), "spec.bgpInstances[0].routerIDPool", "must not have host bits set"},

	// Selectors.
	{"selector unknown operator", clusterConfig, clusterSelector(`matchExpressions: [{key: rack, operator: Like, values: [a]}]`), "spec.nodeSelector.matchExpressions[0].operator", "Unsupported value"},
	{"selector In without values", clusterConfig, clusterSelector(`matchExpressions: [{key: rack, operator: In}]`), "spec.nodeSelector.matchExpressions[0]", "values must be non-empty for In and NotIn"},
	{"selector Exists with values", clusterConfig, clusterSelector(`matchExpressions: [{key: rack, operator: Exists, values: [a]}]`), "spec.nodeSelector.matchExpressions[0]", "empty for Exists and DoesNotExist"},
	{"selector bad label key", clusterConfig, clusterSelector(`matchLabels: {"-rack": a}`), "spec.nodeSelector", "matchLabels: every key must be a qualified label name"},
	{"selector bad label value", clusterConfig, clusterSelector(`matchLabels: {rack: "rack 1"}`), "spec.nodeSelector.matchLabels.rack", "should match"},

	// Peer configs.
	{"keepalive above hold", peerConfig, `{timers: {holdTimeSeconds: 30, keepAliveTimeSeconds: 60}}`, "spec.timers", "timers.keepAliveTimeSeconds must be less than or equal to timers.holdTimeSeconds"},
	{"keepalive above defaulted hold", peerConfig, `{timers: {keepAliveTimeSeconds: 120}}`, "spec.timers", "timers.keepAliveTimeSeconds must be less than or equal to timers.holdTimeSeconds"},
	{"hold below 3", peerConfig, `{timers: {holdTimeSeconds: 2, keepAliveTimeSeconds: 1}}`, "spec.timers.holdTimeSeconds", "greater than or equal to 3"},
	{"hold above 65535", peerConfig, `{timers: {holdTimeSeconds: 65536}}`, "spec.timers.holdTimeSeconds", "less than or equal to 65535"},
	{"keepalive zero", peerConfig, `{timers: {keepAliveTimeSeconds: 0}}`, "spec.timers.keepAliveTimeSeconds", "greater than or equal to 1"},
	{"connect retry zero", peerConfig, `{timers: {connectRetryTimeSeconds: 0}}`, "spec.timers.connectRetryTimeSeconds", "greater than or equal to 1"},
	{"addPaths sendMax 0", peerConfig, `{families: [{afi: ipv4, safi: unicast, addPaths: {sendMax: 0}}]}`, "spec.families[0].addPaths.sendMax", "greater than or equal to 1"},
	{"addPaths sendMax 256", peerConfig, `{families: [{afi: ipv4, safi: unicast, addPaths: {sendMax: 256}}]}`, "spec.families[0].addPaths.sendMax", "less than or equal to 255"},
	{"addPaths without sendMax", peerConfig, `{families: [{afi: ipv4, safi: unicast, addPaths: {}}]}`, "spec.families[0].addPaths.sendMax", "Required value"},
	{"restart time zero", peerConfig, `{gracefulRestart: {enabled: true, restartTimeSeconds: 0}}`, "spec.gracefulRestart.restartTimeSeconds", "greater than or equal to 1"},
	{"restart time above 4095", peerConfig, `{gracefulRestart: {enabled: true, restartTimeSeconds: 4096}}`, "spec.gracefulRestart.restartTimeSeconds", "less than or equal to 4095"},
	{"long-lived stale time without graceful restart", peerConfig, `{gracefulRestart: {enabled: false, longLivedStaleTimeSeconds: 300}}`, "spec.gracefulRestart", "longLivedStaleTimeSeconds needs graceful restart enabled"},
	{"long-lived stale time zero", peerConfig, `{gracefulRestart: {enabled: true, longLivedStaleTimeSeconds: 0}}`, "spec.gracefulRestart.longLivedStaleTimeSeconds", "greater than or equal to 1"},
	{"long-lived stale time above 24 bits", peerConfig, `{gracefulRestart: {enabled: true, longLivedStaleTimeSeconds: 16777216}}`, "spec.gracefulRestart.longLivedStaleTimeSeconds", "less than or equal to 16777215"},
	{"multihop zero", peerConfig, `{ebgpMultihop: 0}`, "spec.ebgpMultihop", "greater than or equal to 1"},
	{"multihop above 255", peerConfig, `{ebgpMultihop: 256}`, "spec.ebgpMultihop", "less than or equal to 255"},
	{"peer port zero", peerConfig, `{transport: {peerPort: 0}}`, "spec.transport.peerPort", "greater than or equal to 1"},
	{"local port above 65535", peerConfig, `{transport: {localPort: 65536}}`, "spec.transport.localPort", "less than or equal to 65535"},
	{"unknown afi", peerConfig, `{families: [{afi: ipv5, safi: unicast}]}`, "spec.families[0].afi", "Unsupported value"},
	{"unknown safi", peerConfig, `{families: [{afi: ipv4, safi: multicast}]}`, "spec.families[0].safi", "Unsupported value"},
	{"duplicate family", peerConfig, `{families: [{afi: ipv4, safi: unicast}, {afi: ipv4, safi: unicast}]}`, "spec.families[1]", "Duplicate value"},
	{"empty families", peerConfig, `{families: []}`, "spec.families", "at least 1 items"},
	{"import accepting nothing", peerConfig, `{families: [{afi: ipv4, safi: unicast, import: {maxRoutes: 5}}]}`, "spec.families[0].import", "import accepts nothing"},
	{"import prefix of the other family", peerConfig, `{families: [{afi: ipv4, safi: unicast, import: {prefixes: [{prefix: "2001:db8::/32"}]}}]}`, "spec.families[0]", "import.prefixes must be of the family's address family"},
	{"import prefix not a CIDR", peerConfig, `{families: [{afi: ipv4, safi: unicast, import: {prefixes: [{prefix: 10.0.0.0}]}}]}`, "spec.families[0].import.prefixes[0].prefix", "must be a CIDR"},
	{"import prefix with host bits", peerConfig, `{families: [{afi: ipv4, safi: unicast, import: {prefixes: [{prefix: 10.0.0.1/8}]}}]}`, "spec.families[0].import.prefixes[0].prefix", "must not have host bits set"},
	{"import ge below the prefix length", peerConfig, `{families: [{afi: ipv4, safi: unicast, import: {prefixes: [{prefix: 10.0.0.0/8, ge: 4}]}}]}`, "spec.families[0].import.prefixes[0]", "ge must be at least the prefix's length"},
	{"import le below the prefix length", peerConfig, `{families: [{afi: ipv4, safi: unicast, import: {prefixes: [{prefix: 10.0.0.0/16, le: 8}]}}]}`, "spec.families[0].import.prefixes[0]", "le must be at least the prefix's length"},
	{"import ge above le", peerConfig, `{families: [{afi: ipv4, safi: unicast, import: {prefixes: [{prefix: 10.0.0.0/8, ge: 24, le: 16}]}}]}`, "spec.families[0].import.prefixes[0]", "ge must be less than or equal to le"},
	{"import le past IPv4's 32", peerConfig, `{families: [{afi: ipv4, safi: unicast, import: {prefixes: [{prefix: 10.0.0.0/8, le: 33}]}}]}`, "spec.families[0].import.prefixes[0]", "at most the address length"},
	{"import le past 128", peerConfig, `{families: [{afi: ipv6, safi: unicast, import: {prefixes: [{prefix: "2001:db8::/32", le: 129}]}}]}`, "spec.families[0].import.prefixes[0].le", "less than or equal to 128"},
	{"import maxRoutes zero", peerConfig, `{families: [{afi: ipv4, safi: unicast, import: {allowDefaultRoute: true, maxRoutes: 0}}]}`, "spec.families[0].import.maxRoutes", "greater than or equal to 1"},
	{"auth secret not a name", peerConfig, `{authSecretRef: Bad_Secret}`, "spec.authSecretRef", "authSecretRef must be a Secret name"},

	// Advertisements.
	{"no advertisements", advertisement, `{advertisements: []}`, "spec.advertisements", "at least 1 items"},
	{"unknown advertisement type", advertisement, `{advertisements: [{advertisementType: PodIP}]}`, "spec.advertisements[0].advertisementType", "Unsupported value"},
	{"Service without service", advertisement, `{advertisements: [{advertisementType: Service}]}`, "spec.advertisements[0]", "service is required when advertisementType is Service"},
	{"PodCIDR with service", advertisement, `{advertisements: [{advertisementType: PodCIDR, service: {addresses: [ClusterIP]}}]}`, "spec.advertisements[0]", "service is required when advertisementType is Service and not allowed otherwise"},
	{"nodeAddress on a PodCIDR entry", advertisement, `{advertisements: [{advertisementType: PodCIDR, nodeAddress: {interface: lo}}]}`, "spec.advertisements[0]", "nodeAddress is allowed only when advertisementType is NodeAddress"},
	{"NodeAddress interface not an interface name", advertisement, `{advertisements: [{advertisementType: NodeAddress, nodeAddress: {interface: "lo 0"}}]}`, "spec.advertisements[0].nodeAddress.interface", "interface must be a Linux interface name"},
	{"PodCIDR with selector", advertisement, `{advertisements: [{advertisementType: PodCIDR, selector: {matchLabels: {app: web}}}]}`, "spec.advertisements[0]", "selector applies to Services only"},
	{"no service addresses", advertisement, `{advertisements: [{advertisementType: Service, service: {addresses: []}}]}`, "spec.advertisements[0].service.addresses", "at least 1 items"},
	{"load-balancer range not a CIDR", advertisement, `{advertisements: [{advertisementType: Service, service: {addresses: [LoadBalancerIP], loadBalancerIPPrefixes: [203.0.113.7]}}]}`, "spec.advertisements[0].service.loadBalancerIPPrefixes[0]", "must be a CIDR"},
	{"external range with host bits", advertisement, `{advertisements: [{advertisementType: Service, service: {addresses: [ExternalIP], externalIPPrefixes: ["2001:db8::1/64"]}}]}`, "spec.advertisements[0].service.externalIPPrefixes[0]", "must not have host bits set"},
	{"no address per Service", advertisement, `{advertisements: [{advertisementType: Service, service: {addresses: [ExternalIP], maxAddressesPerService: 0}}]}`, "spec.advertisements[0].service.maxAddressesPerService", "should be greater than or equal to 1"},
	{"aggregation length IPv4 0", advertisement, `{advertisements: [{advertisementType: Service, service: {addresses: [LoadBalancerIP], aggregationLengthIPv4: 0}}]}`, "spec.advertisements[0].service.aggregationLengthIPv4", "should be greater than or equal to 1"},
	{"aggregation length IPv4 33", advertisement, `{advertisements: [{advertisementType: Service, service: {addresses: [LoadBalancerIP], aggregationLengthIPv4: 33}}]}`, "spec.advertisements[0].service.aggregationLengthIPv4", "should be less than or equal to 32"},
	{"aggregation length IPv6 129", advertisement, `{advertisements: [{advertisementType: Service, service: {addresses: [ExternalIP], aggregationLengthIPv6: 129}}]}`, "spec.advertisements[0].service.aggregationLengthIPv6", "should be less than or equal to 128"},
	{"aggregation of cluster IPs only", advertisement, `{advertisements: [{advertisementType: Service, service: {addresses: [ClusterIP], aggregationLengthIPv4: 24}}]}`, "spec.advertisements[0].service", "aggregationLengthIPv4/IPv6 apply to LoadBalancerIP and ExternalIP addresses only"},
	{"too many addresses per Service", advertisement, `{advertisements: [{advertisementType: Service, service: {addresses: [ExternalIP], maxAddressesPerService: 4097}}]}`, "spec.advertisements[0].service.maxAddressesPerService", "should be less than or equal to 4096"},
	{"unknown service address", advertisement, `{advertisements: [{advertisementType: Service, service: {addresses: [PodIP]}}]}`, "spec.advertisements[0].service.addresses[0]", "Unsupported value"},
	{"standard community part above 65535", advertisement, serviceAdvertisement(`attributes: {communities: {standard: ["65536:1"]}}`), "spec.advertisements[0].attributes.communities.standard[0]", "standard community must be ASN:value"},
	{"standard community one part", advertisement, serviceAdvertisement(`attributes: {communities: {standard: ["65001"]}}`), "spec.advertisements[0].attributes.communities.standard[0]", "standard community must be ASN:value"},
	{"standard community three parts", advertisement, serviceAdvertisement(`attributes: {communities: {standard: ["65001:1:2"]}}`), "spec.advertisements[0].attributes.communities.standard[0]", "standard community must be ASN:value"},
	{"large community two parts", advertisement, serviceAdvertisement(`attributes: {communities: {large: ["65001:1"]}}`), "spec.advertisements[0].attributes.communities.large[0]", "large community must be a:b:c"},
	{"large community part above 32 bits", advertisement, serviceAdvertisement(`attributes: {communities: {large: ["4294967296:1:1"]}}`), "spec.advertisements[0].attributes.communities.large[0]", "large community must be a:b:c"},
	{"unknown well-known community", advertisement, serviceAdvertisement(`attributes: {communities: {wellKnown: [no-exportt]}}`), "spec.advertisements[0].attributes.communities.wellKnown[0]", "Unsupported value"},
	{"duplicate community", advertisement, serviceAdvertisement(`attributes: {communities: {standard: ["65001:1", "65001:1"]}}`), "spec.advertisements[0].attributes.communities.standard[1]", "Duplicate value"},
	{"negative local preference", advertisement, serviceAdvertisement(`attributes: {localPreference: -1}`), "spec.advertisements[0].attributes.localPreference", "greater than or equal to 0"},
	{"prepend count 0", advertisement, serviceAdvertisement(`attributes: {asPathPrepend: {count: 0}}`), "spec.advertisements[0].attributes.asPathPrepend.count", "greater than or equal to 1"},
	{"prepend count 11", advertisement, serviceAdvertisement(`attributes: {asPathPrepend: {count: 11}}`), "spec.advertisements[0].attributes.asPathPrepend.count", "less than or equal to 10"},
	{"prepend without count", advertisement, serviceAdvertisement(`attributes: {asPathPrepend: {asn: 65001}}`), "spec.advertisements[0].attributes.asPathPrepend.count", "Required value"},
	{"prepend ASN 0", advertisement, serviceAdvertisement(`attributes: {asPathPrepend: {count: 1, asn: 0}}`), "spec.advertisements[0].attributes.asPathPrepend.asn", "greater than or equal to 1"},
	{"prepend ASN past 32 bits", advertisement, serviceAdvertisement(`attributes: {asPathPrepend: {count: 1, asn: 4294967296}}`), "spec.advertisements[0].attributes.asPathPrepend.asn", "less than or equal to 4294967295"},
	{"negative MED", advertisement, serviceAdvertisement(`attributes: {med: -1}`), "spec.advertisements[0].attributes.med", "greater than or equal to 0"},
	{"MED past 32 bits", advertisement, serviceAdvertisement(`attributes: {med: 4294967296}`), "spec.advertisements[0].attributes.med", "less than or equal to 4294967295"},

	// Overrides.
	{"override routerID template", override, overrideInstance(`routerID: "${NODE_IP}"`), "spec.bgpInstances[0].routerID", "routerID must be an IPv4 address"},
	{"override routerID loopback", override, overrideInstance(`routerID: 127.0.0.1`), "spec.bgpInstances[0].routerID", msgRouterIDUse},
	{"override nodeRef not a name", override, `{nodeRef: Worker_1}`, "spec.nodeRef", "nodeRef must be a Node name"},
	{"override localAddress not an IP", override, overrideInstance(`peers: [{name: tor-a, localAddress: tor-a}]`), "spec.bgpInstances[0].peers[0].localAddress", "localAddress must be an IPv4 or IPv6 address"},
	{"override peer localPort zero", override, overrideInstance(`peers: [{name: tor-a, localPort: 0}]`), "spec.bgpInstances[0].peers[0].localPort", "greater than or equal to 1"},

	// Node configs (written by the operator, held to the same rules).
	{"node config duplicate peer address", nodeConfig, clusterPeers("- {name: a, peerAddress: 10.1.1.1, peerASN: 65002}\n- {name: b, peerAddress: 10.1.1.1, peerASN: 65002}"), "spec.bgpInstances[0].peers", msgPeerUnique},
	{"node config without instances", nodeConfig, `{}`, "spec.bgpInstances", "Required value"},

	// Load-balancer pools.
	{"pool without blocks", lbPool, `{blocks: []}`, "spec.blocks", "at least 1 items"},
	{"pool block both cidr and range", lbPool, `{blocks: [{cidr: 203.0.113.0/28, start: 203.0.113.20, stop: 203.0.113.30}]}`, "spec.blocks[0]", "a block is either cidr or start and stop"},
	{"pool block empty", lbPool, `{blocks: [{}]}`, "spec.blocks[0]", "a block is either cidr or start and stop"},
	{"pool block start alone", lbPool, `{blocks: [{start: 203.0.113.20}]}`, "spec.blocks[0]", "start and stop go together"},
	{"pool block of two families", lbPool, `{blocks: [{start: 203.0.113.20, stop: "2001:db8::20"}]}`, "spec.blocks[0]", "start and stop must be of one family"},
	{"pool cidr with host bits", lbPool, `{blocks: [{cidr: 203.0.113.7/24}]}`, "spec.blocks[0].cidr", "must not have host bits set"},
	{"pool start not an IP", lbPool, `{blocks: [{start: 203.0.113.300, stop: 203.0.113.301}]}`, "spec.blocks[0].start", "must be an IPv4 or IPv6 address"},

	// Peering policies.
	{"policy without virtual routers", policy, `{virtualRouters: []}`, "spec.virtualRouters", "at least 1 items"},
	{"policy router without neighbours", policy, `{virtualRouters: [{localASN: 65001, neighbors: []}]}`, "spec.virtualRouters[0].neighbors", "at least 1 items"},
	{"policy neighbour a subnet", policy, policyNeighbor(`{peerAddress: 10.0.0.0/24, peerASN: 65010}`), "spec.virtualRouters[0].neighbors[0].peerAddress", "peerAddress must be an IP address, or IP/32 (IPv4) or IP/128 (IPv6)"},
	{"policy neighbour IPv6 /64", policy, policyNeighbor(`{peerAddress: "fc00::50/64", peerASN: 65010}`), "spec.virtualRouters[0].neighbors[0].peerAddress", "peerAddress must be an IP address, or IP/32"},
	{"policy neighbour a hostname", policy, policyNeighbor(`{peerAddress: tor-a, peerASN: 65010}`), "spec.virtualRouters[0].neighbors[0].peerAddress", "peerAddress must be an IP address"},
	{"policy neighbour twice, once as /32", policy, policyNeighbor("{peerAddress: 10.0.0.1, peerASN: 65010}\n- {peerAddress: 10.0.0.1/32, peerASN: 65011}"), "spec.virtualRouters[0].neighbors", "each peerAddress at most once"},
	{"policy keepalive above hold", policy, policyNeighbor(`{peerAddress: 10.0.0.1, peerASN: 65010, holdTimeSeconds: 9, keepAliveTimeSeconds: 30}`), "spec.virtualRouters[0].neighbors[0]", "keepAliveTimeSeconds must be less than or equal to holdTimeSeconds"},
	{"policy hold time below 3", policy, policyNeighbor(`{peerAddress: 10.0.0.1, peerASN: 65010, holdTimeSeconds: 2}`), "spec.virtualRouters[0].neighbors[0].holdTimeSeconds", "greater than or equal to 3"},
	{"policy family not known", policy, policyNeighbor(`{peerAddress: 10.0.0.1, peerASN: 65010, families: [{afi: l2vpn, safi: evpn}]}`), "spec.virtualRouters[0].neighbors[0].families[0].afi", "Unsupported value"},
	{"policy duplicate localASN", policy, `{virtualRouters: [{localASN: 65001, neighbors: [{peerAddress: 10.0.0.1, peerASN: 65010}]}, {localASN: 65001, neighbors: [{peerAddress: 10.0.0.2, peerASN: 65010}]}]}`, "spec.virtualRouters[1]", "Duplicate value"},
}

// policyNeighbor is a peering policy with one virtual router whose neighbours are the
// given YAML flow items (one per line after the first, each prefixed "- ").
func policyNeighbor(neighbors string) string {
	return "virtualRouters:\n- localASN: 65001\n  neighbors:\n" + indent(2, "- "+neighbors)
}

func seventeenInstances() string {
	var b strings.Builder
	b.WriteString("bgpInstances:\n")
	for i := range 17 {
		b.WriteString("- localASN: " + string(rune('1'+i%9)) + strings.Repeat("0", i/9+1) + "\n")
	}
	return b.String()
}

// TestInvalidObjectsAreRefused proves each rule that one object can reveal is enforced
// by the real API server, with a message naming the offending field.
func TestInvalidObjectsAreRefused(t *testing.T) {
	if len(invalidObjects) < 40 {
		t.Fatalf("only %d invalid cases; the contract asks for at least 40", len(invalidObjects))
	}
	for _, tc := range invalidObjects {
		t.Run(tc.name, func(t *testing.T) {
			err := create(t, newObject(t, tc.kind, tc.spec))
			if err == nil {
				t.Fatalf("the API server accepted an invalid %s:\n%s", tc.kind, tc.spec)
			}
			if !apierrors.IsInvalid(err) {
				t.Fatalf("want an Invalid error, got %v", err)
			}
			t.Log(err)
			if msg := err.Error(); !strings.Contains(msg, tc.field+":") || !strings.Contains(msg, tc.message) {
				t.Fatalf("error does not name field %q with %q:\n%s", tc.field, tc.message, msg)
			}
		})
	}
}

// TestPeeringPolicyNameFitsItsLabels: a policy's name is part of label values
// (bgpp-<name>-<asn>, at most 63 characters), so the API server refuses a longer one
// and accepts 47 characters.
func TestPeeringPolicyNameFitsItsLabels(t *testing.T) {
	for _, n := range []int{47, 48} {
		obj := newObject(t, policy, policyNeighbor(`{peerAddress: 10.0.0.1, peerASN: 65010}`))
		obj.SetName(strings.Repeat("p", n))
		err := create(t, obj)
		switch {
		case n == 47 && err != nil:
			t.Errorf("a name of 47 characters was refused: %v", err)
		case n == 48 && (err == nil || !strings.Contains(err.Error(), "is at most 47 characters")):
			t.Errorf("a name of 48 characters: %v, want the refusal naming the limit", err)
		}
	}
}

// TestInterfacePeersAreAccepted: peers over interfaces and at each family's default
// gateway, beside a peer with an address, in a cluster config and a node config.
func TestInterfacePeersAreAccepted(t *testing.T) {
	peers := clusterPeers("- {name: up1, interface: eth1, peerASN: 65100}\n- {name: up2, interface: eth2, peerASN: 65101}\n- {name: rr, peerAddress: 10.1.1.1, peerASN: 65001}\n" +
		"- {name: gw4, autoDiscovery: {mode: DefaultGateway, defaultGateway: {addressFamily: ipv4}}, peerASN: 65200}\n- {name: gw6, autoDiscovery: {mode: DefaultGateway, defaultGateway: {addressFamily: ipv6}}, peerASN: 65200}")
	for _, kind := range []string{clusterConfig, nodeConfig} {
		if err := create(t, newObject(t, kind, peers)); err != nil {
			t.Errorf("%s with interface peers refused: %v", kind, err)
		}
	}
}
