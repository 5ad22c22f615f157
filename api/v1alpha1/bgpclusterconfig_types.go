package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// BGPClusterConfigSpec is the cluster-wide BGP intent for the nodes it selects.
type BGPClusterConfigSpec struct {
	// NodeSelector selects the nodes this configuration applies to. Nil or empty
	// selects every node.
	// +optional
	NodeSelector *LabelSelector `json:"nodeSelector,omitempty"`

	// BGPInstances are the BGP speakers every selected node runs, one per local ASN.
	// +listType=map
	// +listMapKey=localASN
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	BGPInstances []BGPInstance `json:"bgpInstances"`
}

// BGPInstance is one BGP speaker with its peers.
// +kubebuilder:validation:XValidation:rule="!has(self.mesh) || !self.mesh.enabled || has(self.localPort)",message="mesh: the instance must listen (set localPort), since the nodes dial each other"
type BGPInstance struct {
	BGPInstanceSettings `json:",inline"`

	// Peers are the BGP neighbours of this instance.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:XValidation:rule="self.all(p, !has(p.peerAddress) || self.exists_one(q, has(q.peerAddress) && (isIP(p.peerAddress) && isIP(q.peerAddress) ? ip(p.peerAddress) == ip(q.peerAddress) : p.peerAddress == q.peerAddress) && (has(p.vrf) ? p.vrf : '') == (has(q.vrf) ? q.vrf : '')))",message="peers: (peerAddress, vrf) must be unique within an instance; the same address is allowed only in different VRFs"
	// +kubebuilder:validation:XValidation:rule="self.all(p, !has(p.interface) || self.exists_one(q, has(q.interface) && q.interface == p.interface))",message="peers: an interface carries at most one peer of an instance"
	// +kubebuilder:validation:XValidation:rule="self.all(p, !has(p.autoDiscovery) || !has(p.autoDiscovery.defaultGateway) || self.exists_one(q, has(q.autoDiscovery) && has(q.autoDiscovery.defaultGateway) && q.autoDiscovery.defaultGateway.addressFamily == p.autoDiscovery.defaultGateway.addressFamily))",message="peers: at most one peer of an instance is the default gateway of an address family"
	Peers []BGPPeer `json:"peers,omitempty"`

	// Mesh makes the selected nodes peer with each other (or with route reflectors
	// among them) in this instance. See docs/mesh.md.
	// +optional
	Mesh *BGPMesh `json:"mesh,omitempty"`
}

// BGPInstanceSettings are the per-instance fields shared by the cluster config and the
// rendered node config.
type BGPInstanceSettings struct {
	// LocalASN is the instance's autonomous system number (4-byte ASNs supported). It
	// keys the instance: unique within the list.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=4294967295
	LocalASN int64 `json:"localASN"`

	// RouterID is an IPv4 literal used as-is, or exactly one of the templates
	// ${NODE_IP}, ${NODE_IPV4}, ${NODE_EXTERNAL_IP} or ${node.annotations['KEY']}.
	// When unset the node's InternalIP IPv4 is used, else a hash of the node name
	// into RouterIDPool. See docs/router-id.md.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:XValidation:rule="isIP(self) || self in ['${NODE_IP}', '${NODE_IPV4}', '${NODE_EXTERNAL_IP}'] || (self.startsWith(\"${node.annotations['\") && self.endsWith(\"']}\") && self.size() > 23)",message="routerID must be an IPv4 address or exactly one of ${NODE_IP}, ${NODE_IPV4}, ${NODE_EXTERNAL_IP}, ${node.annotations['KEY']}"
	// +kubebuilder:validation:XValidation:rule="!isIP(self) || ip(self).family() == 4",message="routerID must be an IPv4 address, not IPv6"
	// +kubebuilder:validation:XValidation:rule="!isIP(self) || ip(self).family() != 4 || (ip(self).isGlobalUnicast() && !cidr('224.0.0.0/4').containsIP(self))",message="routerID must not be a loopback, link-local, unspecified, multicast or broadcast address"
	// +kubebuilder:validation:XValidation:rule="!self.startsWith(\"${node.annotations['\") || !self.endsWith(\"']}\") || self.size() <= 23 || (self.substring(20, self.size() - 3).matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$') && self.substring(20, self.size() - 3).split('/')[self.substring(20, self.size() - 3).split('/').size() - 1].size() <= 63)",message="routerID: the annotation key must be a Kubernetes annotation key: [DNS-subdomain prefix/]name, name at most 63 ASCII letters, digits, '-', '_' or '.'"
	RouterID string `json:"routerID,omitempty"`

	// RouterIDPool is the IPv4 CIDR that node-name hashes map into when no IPv4 router
	// ID can be found. Prefix length at most /24. Use a distinct pool per cluster.
	// +optional
	// +kubebuilder:default="10.255.0.0/16"
	// +kubebuilder:validation:MaxLength=18
	// +kubebuilder:validation:XValidation:rule="isCIDR(self) && cidr(self).ip().family() == 4",message="routerIDPool must be an IPv4 CIDR such as 10.255.0.0/16"
	// +kubebuilder:validation:XValidation:rule="!isCIDR(self) || cidr(self).prefixLength() <= 24",message="routerIDPool must hold at least 256 addresses (prefix length /24 or shorter)"
	// +kubebuilder:validation:XValidation:rule="!isCIDR(self) || cidr(self) == cidr(self).masked()",message="routerIDPool must not have host bits set (use the network address, e.g. 10.255.0.0/16)"
	RouterIDPool string `json:"routerIDPool,omitempty"`

	// LocalPort is the TCP port the instance listens on for incoming sessions. Unset:
	// the instance does not listen and only dials out.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	LocalPort *int32 `json:"localPort,omitempty"`

	// ListenAddresses are the addresses the listener binds when LocalPort is set. Empty:
	// the node's InternalIP addresses (never every address of the node). Ignored for a
	// speaker bound to a VRF, whose listener is bound to the VRF device.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=8
	ListenAddresses []IPAddress `json:"listenAddresses,omitempty"`

	// BMPCollectors are BMP stations (RFC 7854) that every speaker of the instance, one
	// per VRF included, streams its sessions, routes and statistics to. Adding,
	// changing or removing one touches no BGP session. See docs/status.md.
	// +optional
	// +listType=map
	// +listMapKey=address
	// +kubebuilder:validation:MaxItems=4
	BMPCollectors []BMPCollector `json:"bmpCollectors,omitempty"`
}

// BMPCollector is one BMP station.
type BMPCollector struct {
	// Address is the collector's IPv4 or IPv6 address.
	Address IPAddress `json:"address"`

	// Port is the collector's TCP port.
	// +optional
	// +kubebuilder:default=11019
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port *int32 `json:"port,omitempty"`

	// RouteMonitoring says which routes Route Monitoring messages carry: PrePolicy,
	// the routes received from each peer as received; PostPolicy, after import policy;
	// LocalRIB (RFC 9069), the speaker's best paths, the node's own announcements
	// included; All, the three.
	// +optional
	// +kubebuilder:default=PrePolicy
	RouteMonitoring BMPRouteMonitoring `json:"routeMonitoring,omitempty"`

	// StatisticsIntervalSeconds is how often Statistics Reports are sent; unset or 0:
	// none.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=65535
	StatisticsIntervalSeconds *int32 `json:"statisticsIntervalSeconds,omitempty"`
}

// BMPRouteMonitoring names the routes a BMP collector is sent.
// +kubebuilder:validation:Enum=PrePolicy;PostPolicy;LocalRIB;All
type BMPRouteMonitoring string

// What a BMP collector can be sent.
const (
	BMPPrePolicy  BMPRouteMonitoring = "PrePolicy"
	BMPPostPolicy BMPRouteMonitoring = "PostPolicy"
	BMPLocalRIB   BMPRouteMonitoring = "LocalRIB"
	BMPAll        BMPRouteMonitoring = "All"
)

// IPAddress is an IPv4 or IPv6 address literal.
// +kubebuilder:validation:MaxLength=45
// +kubebuilder:validation:XValidation:rule="isIP(self)",message="must be an IPv4 or IPv6 address"
type IPAddress string

// BGPPeer is one BGP neighbour of an instance, reached at an address, over an
// interface (an unnumbered session) or at the node's default gateway (see
// docs/routing-on-the-host.md).
// +kubebuilder:validation:XValidation:rule="(has(self.peerAddress) ? 1 : 0) + (has(self.interface) ? 1 : 0) + (has(self.autoDiscovery) ? 1 : 0) == 1",message="exactly one of peerAddress, interface and autoDiscovery must be set"
// +kubebuilder:validation:XValidation:rule="has(self.peerASN) != has(self.dynamicASN)",message="exactly one of peerASN and dynamicASN must be set"
type BGPPeer struct {
	// Name identifies the peer within its instance (a DNS label).
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')",message="name must be a DNS label: lowercase letters, digits and '-', starting and ending with a letter or digit"
	Name string `json:"name"`

	// PeerAddress is the neighbour's IPv4 or IPv6 address. Exactly one of peerAddress
	// and interface is set.
	// +optional
	// +kubebuilder:validation:MaxLength=45
	// +kubebuilder:validation:XValidation:rule="isIP(self)",message="peerAddress must be an IPv4 or IPv6 address"
	PeerAddress string `json:"peerAddress,omitempty"`

	// Interface is the node's network interface the session runs over, unnumbered: the
	// neighbour is the IPv6 link-local router the node's neighbour table has on it
	// (routers announce themselves with router advertisements, as FRR does for its
	// interface neighbours), and IPv4 routes are sent with IPv6 next hops (RFC 8950).
	// The same field as MetalLB's and frr-k8s's. An interface that does not exist, or
	// has no such neighbour yet, is reported and looked at again.
	// +optional
	// +kubebuilder:validation:MaxLength=15
	// +kubebuilder:validation:XValidation:rule="self.matches('^[A-Za-z0-9_][-A-Za-z0-9_.]*$')",message="interface must be a Linux interface name: at most 15 characters from letters, digits, '-', '_' and '.'"
	Interface string `json:"interface,omitempty"`

	// AutoDiscovery finds the neighbour's address on the node instead:
	// DefaultGateway peers with the gateway of the node's default route of one address
	// family (Cilium's mode of the same name), followed when the default route changes.
	// +optional
	AutoDiscovery *PeerAutoDiscovery `json:"autoDiscovery,omitempty"`

	// PeerASN is the neighbour's autonomous system number. Exactly one of peerASN and
	// dynamicASN is set.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=4294967295
	PeerASN int64 `json:"peerASN,omitempty"`

	// DynamicASN accepts the neighbour's ASN from its OPEN message instead of a fixed
	// one: External any ASN other than the instance's own, Internal only the
	// instance's own (FRR's "remote-as external|internal", MetalLB's and frr-k8s's
	// dynamicASN). An ASN of the other kind is refused (Bad Peer AS). Meant for peers
	// over an interface, where every ToR may have its own ASN.
	// +optional
	// +kubebuilder:validation:Enum=Internal;External
	DynamicASN DynamicASN `json:"dynamicASN,omitempty"`

	// VRF is the Linux VRF (or interface) the session's sockets are bound to. Empty
	// means the default VRF.
	// +optional
	// +kubebuilder:validation:MaxLength=15
	// +kubebuilder:validation:XValidation:rule="self.matches('^[A-Za-z0-9_][-A-Za-z0-9_.]*$')",message="vrf must be a Linux interface name: at most 15 characters from letters, digits, '-', '_' and '.'"
	VRF string `json:"vrf,omitempty"`

	// PeerConfigRef names the BGPPeerConfig holding this peer's transport, timers,
	// families and advertisements. Without it the peer gets defaults and advertises
	// nothing.
	// +optional
	PeerConfigRef *PeerConfigReference `json:"peerConfigRef,omitempty"`
}

// DynamicASN is the kind of ASN a peer without a fixed one may have.
type DynamicASN string

// The kinds of DynamicASN.
const (
	// DynamicASNInternal: the instance's own ASN (iBGP).
	DynamicASNInternal DynamicASN = "Internal"
	// DynamicASNExternal: any ASN but the instance's own (eBGP).
	DynamicASNExternal DynamicASN = "External"
)

// PeerAutoDiscovery says how the agent finds a peer's address.
// +kubebuilder:validation:XValidation:rule="self.mode != 'DefaultGateway' || has(self.defaultGateway)",message="mode DefaultGateway needs defaultGateway"
type PeerAutoDiscovery struct {
	// Mode is DefaultGateway: the gateway of the node's default route.
	// +kubebuilder:validation:Enum=DefaultGateway
	Mode AutoDiscoveryMode `json:"mode"`

	// DefaultGateway says which default route.
	// +optional
	DefaultGateway *DefaultGatewayDiscovery `json:"defaultGateway,omitempty"`
}

// AutoDiscoveryMode is how a peer's address is found.
type AutoDiscoveryMode string

// AutoDiscoveryDefaultGateway: the gateway of the node's default route.
const AutoDiscoveryDefaultGateway AutoDiscoveryMode = "DefaultGateway"

// DefaultGatewayDiscovery selects the default route whose gateway is the peer.
type DefaultGatewayDiscovery struct {
	// AddressFamily is the family of the default route, ipv4 or ipv6, in the node's
	// main routing table (the default VRF's). With several default routes the one of
	// the lowest metric counts; with several gateways (ECMP), the lowest address.
	AddressFamily AFI `json:"addressFamily"`
}

// PeerConfigReference names a BGPPeerConfig.
type PeerConfigReference struct {
	// Name is the BGPPeerConfig's name.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')",message="peerConfigRef.name must be a DNS subdomain name"
	Name string `json:"name"`
}

// BGPClusterConfigStatus reports how the operator applied the cluster config.
type BGPClusterConfigStatus struct {
	// Conditions: Ready, NoMatchingNodes, MissingPeerConfigs,
	// ConflictingClusterConfigs and RouterIDConflict.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// BGPClusterConfig is the cluster-wide BGP configuration: which nodes run which BGP
// instances and peer with whom. The operator renders one BGPNodeConfig per selected
// node from it.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,shortName=bgpcc,categories=kbgp
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type BGPClusterConfig struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   BGPClusterConfigSpec   `json:"spec"`
	Status BGPClusterConfigStatus `json:"status,omitempty"`
}

// BGPClusterConfigList is a list of BGPClusterConfig.
//
// +kubebuilder:object:root=true
type BGPClusterConfigList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []BGPClusterConfig `json:"items"`
}
