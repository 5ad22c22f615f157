package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// BGPAdvertisementSpec lists what to announce and with which path attributes.
type BGPAdvertisementSpec struct {
	// Advertisements are the prefix sources with their attributes.
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	Advertisements []Advertisement `json:"advertisements"`
}

// AdvertisementType is the source of the advertised prefixes.
// +kubebuilder:validation:Enum=PodCIDR;Service;NodeAddress
type AdvertisementType string

// Advertisement types.
const (
	// AdvertisementPodCIDR announces the node's spec.podCIDRs (both families).
	AdvertisementPodCIDR AdvertisementType = "PodCIDR"
	// AdvertisementService announces Service addresses as host routes.
	AdvertisementService AdvertisementType = "Service"
	// AdvertisementNodeAddress announces the node's own addresses as host routes.
	AdvertisementNodeAddress AdvertisementType = "NodeAddress"
)

// Advertisement is one source of prefixes and the attributes they carry.
//
// +kubebuilder:validation:XValidation:rule="self.advertisementType == 'Service' ? has(self.service) : !has(self.service)",message="service is required when advertisementType is Service and not allowed otherwise"
// +kubebuilder:validation:XValidation:rule="self.advertisementType == 'Service' || !has(self.selector)",message="selector applies to Services only: not allowed when advertisementType is PodCIDR or NodeAddress"
// +kubebuilder:validation:XValidation:rule="self.advertisementType == 'NodeAddress' || !has(self.nodeAddress)",message="nodeAddress is allowed only when advertisementType is NodeAddress"
type Advertisement struct {
	// AdvertisementType is PodCIDR, Service or NodeAddress.
	AdvertisementType AdvertisementType `json:"advertisementType"`

	// NodeAddress says which of the node's addresses NodeAddress announces: without it
	// (or without interface) the Node's InternalIPs; with interface, the global
	// addresses of that interface of the node (the loopback or dummy interface a routed
	// node is reached at, whichever uplink is up). Each as a host route (/32, /128).
	// +optional
	NodeAddress *NodeAddressAdvertisement `json:"nodeAddress,omitempty"`

	// Service says which addresses of the selected Services are announced. Required
	// exactly when AdvertisementType is Service.
	// +optional
	Service *ServiceAdvertisement `json:"service,omitempty"`

	// Selector selects Services by label; the pseudo-labels kbgp.io/service-name and
	// kbgp.io/service-namespace match a Service's name and namespace. Nil selects every
	// Service.
	// +optional
	Selector *LabelSelector `json:"selector,omitempty"`

	// Attributes are the path attributes set on the announced prefixes.
	// +optional
	Attributes *BGPAttributes `json:"attributes,omitempty"`
}

// NodeAddressAdvertisement selects the node's addresses a NodeAddress entry announces.
type NodeAddressAdvertisement struct {
	// Interface is the node's network interface whose global addresses are announced.
	// +optional
	// +kubebuilder:validation:MaxLength=15
	// +kubebuilder:validation:XValidation:rule="self.matches('^[A-Za-z0-9_][-A-Za-z0-9_.]*$')",message="interface must be a Linux interface name: at most 15 characters from letters, digits, '-', '_' and '.'"
	Interface string `json:"interface,omitempty"`
}

// ServiceAddressType names one kind of Service address.
// +kubebuilder:validation:Enum=LoadBalancerIP;ClusterIP;ExternalIP
type ServiceAddressType string

// Service address types.
const (
	// ServiceLoadBalancerIP is status.loadBalancer.ingress[].ip of LoadBalancer Services
	// whose loadBalancerClass is unset or kbgp.io/bgp.
	ServiceLoadBalancerIP ServiceAddressType = "LoadBalancerIP"
	// ServiceClusterIP is spec.clusterIPs of non-headless Services.
	ServiceClusterIP ServiceAddressType = "ClusterIP"
	// ServiceExternalIP is spec.externalIPs.
	ServiceExternalIP ServiceAddressType = "ExternalIP"
)

// ServiceAdvertisement selects which addresses of a Service are announced.
// +kubebuilder:validation:XValidation:rule="(!has(self.aggregationLengthIPv4) && !has(self.aggregationLengthIPv6)) || self.addresses.exists(a, a != 'ClusterIP')",message="aggregationLengthIPv4/IPv6 apply to LoadBalancerIP and ExternalIP addresses only"
type ServiceAdvertisement struct {
	// Addresses are the kinds of Service address announced, each as a /32 or /128.
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=3
	Addresses []ServiceAddressType `json:"addresses"`

	// ExternalIPPrefixes are the ranges an ExternalIP address must lie in to be
	// announced. spec.externalIPs is chosen by whoever writes the Service, so an
	// administrator allows its ranges here; empty: no external IP is announced, and the
	// node's status names each Service whose external IP was refused.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=32
	ExternalIPPrefixes []CIDR `json:"externalIPPrefixes,omitempty"`

	// LoadBalancerIPPrefixes are the ranges a LoadBalancerIP address must lie in to be
	// announced. An address outside every range is refused and named in the node's
	// status; empty: no load-balancer IP is announced.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=32
	LoadBalancerIPPrefixes []CIDR `json:"loadBalancerIPPrefixes,omitempty"`

	// MaxAddressesPerService caps how many addresses of one family one Service may have
	// announced through this entry. Whoever writes a Service chooses how many external
	// IPs it has, and each is a /32 or /128 to every peer: a Service past the cap is
	// refused as a whole (none of its addresses of that family is announced) and named
	// in the node's status, so it cannot push a router's per-neighbour prefix limit
	// over and take the node's other routes down with it. Unset: 8.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=4096
	MaxAddressesPerService *int32 `json:"maxAddressesPerService,omitempty"`

	// AggregationLengthIPv4 announces the IPv4 load-balancer and external IPs of
	// Services with externalTrafficPolicy Cluster as their covering prefix of this
	// length instead of one /32 each (docs/advertisements.md, "Aggregation"). Addresses
	// of Services with externalTrafficPolicy Local stay /32. An address whose aggregate
	// would reach outside the range that allows it, or cover a node's address, a pod
	// CIDR or a Service CIDR, is announced as a /32. Unset or 32: no aggregation.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=32
	AggregationLengthIPv4 *int32 `json:"aggregationLengthIPv4,omitempty"`

	// AggregationLengthIPv6 is AggregationLengthIPv4 for IPv6 (/128 host routes).
	// Unset or 128: no aggregation.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=128
	AggregationLengthIPv6 *int32 `json:"aggregationLengthIPv6,omitempty"`
}

// DefaultMaxAddressesPerService is MaxAddressesPerService when unset.
const DefaultMaxAddressesPerService = 8

// CIDR is an IPv4 or IPv6 prefix in CIDR notation without host bits, e.g.
// 203.0.113.0/24 or 2001:db8::/48.
// +kubebuilder:validation:MaxLength=49
// +kubebuilder:validation:XValidation:rule="isCIDR(self)",message="must be a CIDR such as 203.0.113.0/24 or 2001:db8::/48"
// +kubebuilder:validation:XValidation:rule="!isCIDR(self) || cidr(self) == cidr(self).masked()",message="must not have host bits set (use the network address, e.g. 203.0.113.0/24)"
type CIDR string

// BGPAttributes are path attributes set on announced prefixes.
type BGPAttributes struct {
	// Communities are added to the announced paths.
	// +optional
	Communities *BGPCommunities `json:"communities,omitempty"`

	// LocalPreference is sent to iBGP peers only.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=4294967295
	LocalPreference *int64 `json:"localPreference,omitempty"`

	// ASPathPrepend prepends an AS number to the AS path sent to eBGP peers, on top of
	// the one every eBGP speaker prepends, so routers prefer other paths to the prefix.
	// iBGP peers get the path unchanged: an iBGP peer would find its own AS in the path
	// and drop it as a loop.
	// +optional
	ASPathPrepend *ASPathPrepend `json:"asPathPrepend,omitempty"`

	// MED is the MULTI_EXIT_DISC sent with the prefix to eBGP and iBGP peers; a
	// router compares it between paths from the same neighbouring AS, lower first.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=4294967295
	MED *int64 `json:"med,omitempty"`

	// WeightedECMP attaches the BGP link-bandwidth extended community (non-transitive)
	// to the Service addresses of the entry, so a router that weighs multipath by it
	// (FRR does) sends each node a share of the traffic proportional to what the node
	// serves: for an address whose traffic policy
	// is Local (externalTrafficPolicy for load-balancer and external IPs,
	// internalTrafficPolicy for the cluster IP), 125000 bytes/s (1 Mbit/s) per ready
	// endpoint on the node; otherwise 125000 bytes/s on every node (equal weights).
	// A node lets one change of a Service's endpoint count through per 5 seconds at
	// most (see docs/advertisements.md). Pod CIDR and node address entries ignore it.
	// +optional
	WeightedECMP bool `json:"weightedECMP,omitempty"`
}

// ASPathPrepend is how often and which AS number is prepended to the AS path.
type ASPathPrepend struct {
	// Count is how many extra times the AS number is prepended.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=10
	Count int32 `json:"count"`

	// ASN is the prepended AS number. Unset: the local ASN of the peer's instance.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=4294967295
	ASN *int64 `json:"asn,omitempty"`
}

// BGPCommunities are the communities added to announced paths.
type BGPCommunities struct {
	// Standard communities (RFC 1997) as "ASN:value", each part 0..65535.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=32
	Standard []StandardCommunity `json:"standard,omitempty"`

	// Large communities (RFC 8092) as "a:b:c", each part 0..4294967295.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=32
	Large []LargeCommunity `json:"large,omitempty"`

	// WellKnown communities by name.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=6
	WellKnown []WellKnownCommunity `json:"wellKnown,omitempty"`
}

// StandardCommunity is an RFC 1997 community written "ASN:value".
// +kubebuilder:validation:MaxLength=11
// +kubebuilder:validation:XValidation:rule="self.matches('^[0-9]{1,5}:[0-9]{1,5}$') && self.split(':').all(p, int(p) <= 65535)",message="standard community must be ASN:value with each part 0..65535, e.g. 65001:100"
type StandardCommunity string

// LargeCommunity is an RFC 8092 large community written "a:b:c".
// +kubebuilder:validation:MaxLength=32
// +kubebuilder:validation:XValidation:rule="self.matches('^[0-9]{1,10}:[0-9]{1,10}:[0-9]{1,10}$') && self.split(':').all(p, int(p) <= 4294967295)",message="large community must be a:b:c with each part 0..4294967295, e.g. 65001:1:2"
type LargeCommunity string

// WellKnownCommunity is a well-known community by name.
// +kubebuilder:validation:Enum=no-export;no-advertise;no-export-subconfed;no-peer;blackhole;graceful-shutdown
type WellKnownCommunity string

// BGPAdvertisement says which prefixes to announce and with which attributes. Peer
// configs select advertisements by label, per address family.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,shortName=bgpadv,categories=kbgp
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type BGPAdvertisement struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec BGPAdvertisementSpec `json:"spec"`
}

// BGPAdvertisementList is a list of BGPAdvertisement.
//
// +kubebuilder:object:root=true
type BGPAdvertisementList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []BGPAdvertisement `json:"items"`
}
