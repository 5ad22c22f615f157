package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// BGPNodeConfigSpec is the BGP configuration of one node: the selected cluster
// config's instances with the node's override applied. Peer configs and
// advertisements stay references that the agent resolves.
type BGPNodeConfigSpec struct {
	// BGPInstances are the BGP speakers the node runs.
	// +listType=map
	// +listMapKey=localASN
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	BGPInstances []BGPNodeInstance `json:"bgpInstances"`
}

// BGPNodeInstance is one BGP speaker on the node.
type BGPNodeInstance struct {
	BGPInstanceSettings `json:",inline"`

	// Peers are the instance's neighbours with node-specific fields filled in.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:XValidation:rule="self.all(p, !has(p.peerAddress) || self.exists_one(q, has(q.peerAddress) && (isIP(p.peerAddress) && isIP(q.peerAddress) ? ip(p.peerAddress) == ip(q.peerAddress) : p.peerAddress == q.peerAddress) && (has(p.vrf) ? p.vrf : '') == (has(q.vrf) ? q.vrf : '')))",message="peers: (peerAddress, vrf) must be unique within an instance; the same address is allowed only in different VRFs"
	// +kubebuilder:validation:XValidation:rule="self.all(p, !has(p.interface) || self.exists_one(q, has(q.interface) && q.interface == p.interface))",message="peers: an interface carries at most one peer of an instance"
	// +kubebuilder:validation:XValidation:rule="self.all(p, !has(p.autoDiscovery) || !has(p.autoDiscovery.defaultGateway) || self.exists_one(q, has(q.autoDiscovery) && has(q.autoDiscovery.defaultGateway) && q.autoDiscovery.defaultGateway.addressFamily == p.autoDiscovery.defaultGateway.addressFamily))",message="peers: at most one peer of an instance is the default gateway of an address family"
	Peers []BGPNodePeer `json:"peers,omitempty"`

	// Mesh is the instance's part of the cluster config's mesh: the other nodes this
	// node peers with. See docs/mesh.md.
	// +optional
	Mesh *BGPNodeMesh `json:"mesh,omitempty"`
}

// BGPNodePeer is a peer of a node's instance.
type BGPNodePeer struct {
	BGPPeer           `json:",inline"`
	PeerLocalEndpoint `json:",inline"`

	// Mesh is set on the peers AllPeers makes of the instance's mesh peers; it is
	// never stored.
	Mesh *BGPMeshPeer `json:"-"`
}

// BGPNodeConfigStatus is what the agent on the node reports.
type BGPNodeConfigStatus struct {
	// ObservedGeneration is the spec generation the agent last applied.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// LastUpdateTime is when the agent last changed this status.
	// +optional
	LastUpdateTime *metav1.Time `json:"lastUpdateTime,omitempty"`

	// Conditions: Ready, Degraded and RouterIDResolved.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// FailedResources lists what could not be applied, and why. It is a map keyed by
	// (kind, name) so the operator (ignored overrides) and the agent (everything else)
	// each own their entries under server-side apply.
	// +optional
	// +listType=map
	// +listMapKey=kind
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=64
	FailedResources []FailedResource `json:"failedResources,omitempty"`

	// BGPInstances reports each running instance and its peers.
	// +optional
	// +listType=map
	// +listMapKey=localASN
	// +kubebuilder:validation:MaxItems=16
	BGPInstances []BGPNodeInstanceStatus `json:"bgpInstances,omitempty"`

	// PodNetwork reports the node's pod network when kbgp runs it (agent
	// --pod-network), with the PodNetworkReady condition.
	// +optional
	PodNetwork *PodNetworkStatus `json:"podNetwork,omitempty"`
}

// PodNetworkStatus is what the agent made of the node's pod network.
type PodNetworkStatus struct {
	// PodCIDRs are the Node's pod CIDRs the CNI configuration was written from.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=2
	PodCIDRs []string `json:"podCIDRs,omitempty"`

	// Gateways are the pod gateways as the CNI results returned them (recorded by the
	// kbgp-cni plugin).
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=2
	Gateways []string `json:"gateways,omitempty"`

	// Bridge is the pods' bridge.
	// +optional
	// +kubebuilder:validation:MaxLength=15
	Bridge string `json:"bridge,omitempty"`

	// MTU is the bridge's and pods' MTU.
	// +optional
	MTU int32 `json:"mtu,omitempty"`

	// CNIConfig is the path of the CNI network configuration the agent wrote.
	// +optional
	// +kubebuilder:validation:MaxLength=4096
	CNIConfig string `json:"cniConfig,omitempty"`

	// InstalledRoutes counts the routes to other nodes' pod CIDRs installed from peers
	// with importPodRoutes.
	// +optional
	InstalledRoutes int32 `json:"installedRoutes,omitempty"`
}

// FailedResource names an object that could not be applied on the node.
type FailedResource struct {
	// Kind is the failed object kind, e.g. BGPPeerConfig or Secret.
	// +kubebuilder:validation:MaxLength=63
	Kind string `json:"kind"`

	// Name is the failed object's name.
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// Message says why it failed.
	// +kubebuilder:validation:MaxLength=1024
	Message string `json:"message"`
}

// RouterIDSource is how an instance's router ID was resolved.
// +kubebuilder:validation:Enum=explicit;template;node-ipv4;hash-from-node-name
type RouterIDSource string

// Router ID sources.
const (
	RouterIDSourceExplicit RouterIDSource = "explicit"
	RouterIDSourceTemplate RouterIDSource = "template"
	RouterIDSourceNodeIPv4 RouterIDSource = "node-ipv4"
	RouterIDSourceHash     RouterIDSource = "hash-from-node-name"
)

// RouterIDConfiguration is an instance's router-ID configuration as it was when its
// router ID was resolved.
type RouterIDConfiguration struct {
	// RouterID is the configured routerID: an IPv4 literal, a template, or empty for
	// auto-detection.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	RouterID string `json:"routerID,omitempty"`

	// RouterIDPool is the configured routerIDPool; empty means the default.
	// +optional
	// +kubebuilder:validation:MaxLength=18
	RouterIDPool string `json:"routerIDPool,omitempty"`
}

// BGPNodeInstanceStatus reports one instance on the node.
type BGPNodeInstanceStatus struct {
	// LocalASN identifies the instance.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=4294967295
	LocalASN int64 `json:"localASN"`

	// RouterID is the resolved router ID, locked once resolved.
	// +optional
	// +kubebuilder:validation:MaxLength=15
	RouterID string `json:"routerID,omitempty"`

	// RouterIDSource says how RouterID was resolved.
	// +optional
	RouterIDSource RouterIDSource `json:"routerIDSource,omitempty"`

	// RouterIDResolutionTime is when RouterID was resolved.
	// +optional
	RouterIDResolutionTime *metav1.Time `json:"routerIDResolutionTime,omitempty"`

	// RouterIDNode is the name of the Node the router ID was resolved from.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	RouterIDNode string `json:"routerIDNode,omitempty"`

	// RouterIDResolvedFrom is the configuration RouterID was resolved from. The lock
	// holds while the instance's routerID and routerIDPool stay equal to it; a
	// restarting agent resolves anew when they differ.
	// +optional
	RouterIDResolvedFrom *RouterIDConfiguration `json:"routerIDResolvedFrom,omitempty"`

	// Peers reports each configured peer, the mesh's included.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=288
	Peers []BGPNodePeerStatus `json:"peers,omitempty"`

	// BMPCollectors reports each speaker's connection to each BMP collector.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=128
	BMPCollectors []BMPCollectorStatus `json:"bmpCollectors,omitempty"`
}

// BMPCollectorStatus is one speaker's connection to one BMP collector.
type BMPCollectorStatus struct {
	// Address and Port name the collector.
	// +kubebuilder:validation:MaxLength=45
	Address string `json:"address"`
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port int32 `json:"port"`

	// VRF is the speaker's VRF ("" for the default).
	// +optional
	// +kubebuilder:validation:MaxLength=15
	VRF string `json:"vrf,omitempty"`

	// State is Up while the speaker streams to the collector, Down while it reconnects.
	// +kubebuilder:validation:Enum=Up;Down
	State BMPState `json:"state"`

	// LastTransitionTime is when the connection last came up or went down.
	// +optional
	LastTransitionTime *metav1.Time `json:"lastTransitionTime,omitempty"`
}

// BMPState is the state of a connection to a BMP collector.
type BMPState string

// BMP connection states.
const (
	BMPStateUp   BMPState = "Up"
	BMPStateDown BMPState = "Down"
)

// PeeringState is the BGP finite-state-machine state of a session (RFC 4271 8.2.2).
// +kubebuilder:validation:Enum=Idle;Connect;Active;OpenSent;OpenConfirm;Established
type PeeringState string

// Session states.
const (
	PeeringStateIdle        PeeringState = "Idle"
	PeeringStateConnect     PeeringState = "Connect"
	PeeringStateActive      PeeringState = "Active"
	PeeringStateOpenSent    PeeringState = "OpenSent"
	PeeringStateOpenConfirm PeeringState = "OpenConfirm"
	PeeringStateEstablished PeeringState = "Established"
)

// BFDState is the state of a BFD session (RFC 5880 section 4.1).
type BFDState string

// BFD session states.
const (
	BFDStateUp        BFDState = "Up"
	BFDStateInit      BFDState = "Init"
	BFDStateDown      BFDState = "Down"
	BFDStateAdminDown BFDState = "AdminDown"
)

// BGPNodePeerStatus reports one session. Peers are told apart by (name) within an
// instance, never by address alone: the same address may exist in two VRFs.
type BGPNodePeerStatus struct {
	// Name is the peer's name in the spec.
	// +kubebuilder:validation:MaxLength=63
	Name string `json:"name"`

	// PeerAddress is the neighbour's address: for a peer over an interface, the
	// link-local address found on it (empty until one is found).
	// +kubebuilder:validation:MaxLength=45
	PeerAddress string `json:"peerAddress"`

	// Interface is the interface an unnumbered session runs over; empty for a peer
	// with an address.
	// +optional
	// +kubebuilder:validation:MaxLength=15
	Interface string `json:"interface,omitempty"`

	// VRF is the VRF the session lives in; empty for the default VRF.
	// +kubebuilder:validation:MaxLength=15
	VRF string `json:"vrf"`

	// PeerASN is the neighbour's ASN: the configured one, or for a peer with
	// dynamicASN the one its OPEN carried (absent while it has no session).
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=4294967295
	PeerASN int64 `json:"peerASN,omitempty"`

	// DynamicASN is the peer's dynamicASN: the kind of ASN it may have.
	// +optional
	DynamicASN DynamicASN `json:"dynamicASN,omitempty"`

	// PeeringState is the session's state.
	// +optional
	PeeringState PeeringState `json:"peeringState,omitempty"`

	// MeshRole is what a mesh peer (another node) is to this node; empty for the
	// instance's own peers.
	// +optional
	MeshRole BGPMeshRole `json:"meshRole,omitempty"`

	// Reason says, in one CamelCase word, why the session is held down when kbgp holds
	// it down, e.g. MaxPrefixExceeded; empty otherwise.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	Reason string `json:"reason,omitempty"`

	// Message explains Reason.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	Message string `json:"message,omitempty"`

	// BFDState is the state of the BFD session beside the BGP session (RFC 5880): Up,
	// Init, Down or AdminDown; empty when the peer config does not enable BFD.
	// +optional
	// +kubebuilder:validation:Enum=Up;Init;Down;AdminDown
	BFDState BFDState `json:"bfdState,omitempty"`

	// AddPaths says, for each family whose peer config sets addPaths, whether the peer
	// agreed to receive several paths per prefix; empty until the session is
	// Established.
	// +optional
	// +listType=map
	// +listMapKey=afi
	// +listMapKey=safi
	// +kubebuilder:validation:MaxItems=2
	AddPaths []BGPAddPathsStatus `json:"addPaths,omitempty"`

	// EstablishedTime is when the session last reached Established: a time, never a
	// ticking uptime, so a steady session causes no status writes.
	// +optional
	EstablishedTime *metav1.Time `json:"establishedTime,omitempty"`

	// Timers are the timers negotiated on the session.
	// +optional
	Timers *BGPNegotiatedTimers `json:"timers,omitempty"`

	// RoutesReceived is the number of paths received from the peer.
	// +optional
	RoutesReceived int64 `json:"routesReceived"`

	// RoutesAdvertised is the number of paths sent to the peer.
	// +optional
	RoutesAdvertised int64 `json:"routesAdvertised"`

	// RoutesInstalled is the number of routes the peer sent that are in the node's
	// kernel via its next hop (importPodRoutes, or a family's import policy); absent
	// for a peer that imports nothing.
	// +optional
	RoutesInstalled *int64 `json:"routesInstalled,omitempty"`

	// RoutesRejected is the number of routes the peer sent in an importing family that
	// are not installed: refused by importPodRoutes' rules or the import policy, past
	// its maxRoutes, or where the table has a route kbgp did not install.
	// +optional
	RoutesRejected *int64 `json:"routesRejected,omitempty"`
}

// BGPNegotiatedTimers are the timers in effect on an established session.
type BGPNegotiatedTimers struct {
	// AppliedHoldTimeSeconds is the negotiated hold time.
	// +optional
	AppliedHoldTimeSeconds int32 `json:"appliedHoldTimeSeconds,omitempty"`

	// AppliedKeepaliveSeconds is the keepalive interval in use.
	// +optional
	AppliedKeepaliveSeconds int32 `json:"appliedKeepaliveSeconds,omitempty"`
}

// BGPNodeConfig is the BGP configuration of one node (named after it, owned by it).
// The operator writes the spec; the agent on the node writes the status.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,shortName=bgpnc,categories=kbgp
// +kubebuilder:printcolumn:name="Router-ID",type=string,JSONPath=`.status.bgpInstances[0].routerID`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Degraded",type=string,JSONPath=`.status.conditions[?(@.type=="Degraded")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type BGPNodeConfig struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   BGPNodeConfigSpec   `json:"spec"`
	Status BGPNodeConfigStatus `json:"status,omitempty"`
}

// BGPNodeConfigList is a list of BGPNodeConfig.
//
// +kubebuilder:object:root=true
type BGPNodeConfigList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []BGPNodeConfig `json:"items"`
}
