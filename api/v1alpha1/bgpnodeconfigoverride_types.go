package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// BGPNodeConfigOverrideSpec adjusts the rendered configuration of one node.
type BGPNodeConfigOverrideSpec struct {
	// NodeRef is the name of the Node the override applies to.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')",message="nodeRef must be a Node name (DNS subdomain)"
	NodeRef string `json:"nodeRef"`

	// BGPInstances are matched to the node's instances by localASN.
	// +optional
	// +listType=map
	// +listMapKey=localASN
	// +kubebuilder:validation:MaxItems=16
	BGPInstances []BGPInstanceOverride `json:"bgpInstances,omitempty"`
}

// BGPInstanceOverride overrides fields of the instance with the same localASN.
type BGPInstanceOverride struct {
	// LocalASN selects the instance to override.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=4294967295
	LocalASN int64 `json:"localASN"`

	// NodeLocalASN replaces the instance's local ASN on this node: a per-node (or
	// per-rack) ASN in an eBGP fabric, where each leaf peers with the nodes below it as
	// their own AS. Unset keeps localASN. It must not be the ASN of another instance of
	// the node (reported in the node's failedResources, and then not applied).
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=4294967295
	NodeLocalASN int64 `json:"nodeLocalASN,omitempty"`

	// RouterID replaces the instance's router ID on this node. IPv4 literal only: an
	// override is the operator's explicit choice, never a template.
	// +optional
	RouterID IPv4RouterID `json:"routerID,omitempty"`

	// LocalPort replaces the instance's listening port on this node.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	LocalPort *int32 `json:"localPort,omitempty"`

	// ListenAddresses replaces the instance's listen addresses on this node.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=8
	ListenAddresses []IPAddress `json:"listenAddresses,omitempty"`

	// Peers are matched to the instance's peers by name.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=32
	Peers []BGPPeerOverride `json:"peers,omitempty"`
}

// IPv4RouterID is a router ID written as an IPv4 literal that can identify a router:
// not loopback, link-local, unspecified, multicast or broadcast.
// +kubebuilder:validation:MaxLength=15
// +kubebuilder:validation:XValidation:rule="isIP(self) && ip(self).family() == 4",message="routerID must be an IPv4 address"
// +kubebuilder:validation:XValidation:rule="!isIP(self) || ip(self).family() != 4 || (ip(self).isGlobalUnicast() && !cidr('224.0.0.0/4').containsIP(self))",message="routerID must not be a loopback, link-local, unspecified, multicast or broadcast address"
type IPv4RouterID string

// BGPPeerOverride overrides fields of the peer with the same name.
type BGPPeerOverride struct {
	// Name selects the peer to override.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Name string `json:"name"`

	PeerLocalEndpoint `json:",inline"`
}

// PeerLocalEndpoint is the node-side address and port of a session, which only make
// sense per node and so come from an override.
type PeerLocalEndpoint struct {
	// LocalAddress is the source address of the session.
	// +optional
	// +kubebuilder:validation:MaxLength=45
	// +kubebuilder:validation:XValidation:rule="isIP(self)",message="localAddress must be an IPv4 or IPv6 address"
	LocalAddress string `json:"localAddress,omitempty"`

	// LocalPort is the source port of the session.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	LocalPort *int32 `json:"localPort,omitempty"`
}

// BGPNodeConfigOverride adjusts the BGPNodeConfig rendered for one node: router ID,
// listening port and per-peer source address and port.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,shortName=bgpnco,categories=kbgp
// +kubebuilder:printcolumn:name="Node",type=string,JSONPath=`.spec.nodeRef`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type BGPNodeConfigOverride struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec BGPNodeConfigOverrideSpec `json:"spec"`
}

// BGPNodeConfigOverrideList is a list of BGPNodeConfigOverride.
//
// +kubebuilder:object:root=true
type BGPNodeConfigOverrideList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []BGPNodeConfigOverride `json:"items"`
}
