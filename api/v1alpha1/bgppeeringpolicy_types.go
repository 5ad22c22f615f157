package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// PeeringPolicyLabel is set on every object the operator generates from a
// BGPPeeringPolicy, to the policy's name.
const PeeringPolicyLabel = "kbgp.io/peering-policy"

// AdvertLabel labels the BGPAdvertisement generated for one virtual router of a
// BGPPeeringPolicy; the generated peer configs select it by this label.
const AdvertLabel = "kbgp.io/advert"

// BGPPeeringPolicySpec is the single-object configuration (the
// CiliumBGPPeeringPolicy shape): the operator translates it into a BGPClusterConfig,
// BGPPeerConfigs and BGPAdvertisements.
type BGPPeeringPolicySpec struct {
	// NodeSelector selects the nodes the policy applies to. Nil or empty selects every
	// node.
	// +optional
	NodeSelector *LabelSelector `json:"nodeSelector,omitempty"`

	// VirtualRouters are the BGP instances of the selected nodes, one per local ASN.
	// +listType=map
	// +listMapKey=localASN
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	VirtualRouters []BGPVirtualRouter `json:"virtualRouters"`
}

// BGPVirtualRouter is one BGP instance of a peering policy with its neighbours and what
// it announces to all of them.
type BGPVirtualRouter struct {
	// LocalASN is the instance's autonomous system number.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=4294967295
	LocalASN int64 `json:"localASN"`

	// ExportPodCIDR announces the node's pod CIDRs.
	// +optional
	ExportPodCIDR bool `json:"exportPodCIDR,omitempty"`

	// ServiceSelector, when set, announces the load-balancer addresses of the Services
	// it selects (Service labels and the pseudo-labels kbgp.io/service-name and
	// kbgp.io/service-namespace).
	// +optional
	ServiceSelector *LabelSelector `json:"serviceSelector,omitempty"`

	// Neighbors are the instance's BGP peers.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:XValidation:rule="self.all(n, self.exists_one(m, n.peerAddress.split('/')[0] == m.peerAddress.split('/')[0] || (isIP(n.peerAddress.split('/')[0]) && isIP(m.peerAddress.split('/')[0]) && ip(n.peerAddress.split('/')[0]) == ip(m.peerAddress.split('/')[0]))))",message="neighbors: each peerAddress at most once per virtual router"
	Neighbors []BGPNeighbor `json:"neighbors"`
}

// BGPNeighbor is one peer of a virtual router with its session settings.
//
// +kubebuilder:validation:XValidation:rule="!has(self.keepAliveTimeSeconds) || !has(self.holdTimeSeconds) || self.keepAliveTimeSeconds <= self.holdTimeSeconds",message="keepAliveTimeSeconds must be less than or equal to holdTimeSeconds"
type BGPNeighbor struct {
	// PeerAddress is the neighbour's IPv4 or IPv6 address, also accepted as IP/32 or
	// IP/128 as CiliumBGPPeeringPolicy writes it.
	// +kubebuilder:validation:MaxLength=50
	// +kubebuilder:validation:XValidation:rule="isIP(self) || (isCIDR(self) && ((cidr(self).ip().family() == 4 && cidr(self).prefixLength() == 32) || (cidr(self).ip().family() == 6 && cidr(self).prefixLength() == 128)))",message="peerAddress must be an IP address, or IP/32 (IPv4) or IP/128 (IPv6)"
	PeerAddress string `json:"peerAddress"`

	// PeerASN is the neighbour's autonomous system number.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=4294967295
	PeerASN int64 `json:"peerASN"`

	// PeerPort is the neighbour's TCP port.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	PeerPort *int32 `json:"peerPort,omitempty"`

	// EBGPMultihopTTL is the TTL of packets to an eBGP neighbour; 1 means directly
	// connected.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=255
	EBGPMultihopTTL *int32 `json:"eBGPMultihopTTL,omitempty"`

	// ConnectRetryTimeSeconds is the ConnectRetry timer.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=2147483647
	ConnectRetryTimeSeconds *int32 `json:"connectRetryTimeSeconds,omitempty"`

	// HoldTimeSeconds is the hold time offered in OPEN.
	// +optional
	// +kubebuilder:validation:Minimum=3
	// +kubebuilder:validation:Maximum=65535
	HoldTimeSeconds *int32 `json:"holdTimeSeconds,omitempty"`

	// KeepAliveTimeSeconds is the keepalive interval.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	KeepAliveTimeSeconds *int32 `json:"keepAliveTimeSeconds,omitempty"`

	// GracefulRestart configures graceful restart with this neighbour.
	// +optional
	GracefulRestart *BGPGracefulRestart `json:"gracefulRestart,omitempty"`

	// AuthSecretRef names a Secret in the agent's namespace whose key "password" is the
	// TCP MD5 password.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')",message="authSecretRef must be a Secret name (DNS subdomain)"
	AuthSecretRef *string `json:"authSecretRef,omitempty"`

	// Families are the address families negotiated with the neighbour; the virtual
	// router's announcements go out in each. Default: ipv4/unicast and ipv6/unicast.
	// +optional
	// +listType=map
	// +listMapKey=afi
	// +listMapKey=safi
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=2
	Families []BGPNeighborFamily `json:"families,omitempty"`
}

// BGPNeighborFamily is one AFI/SAFI negotiated with a neighbour.
type BGPNeighborFamily struct {
	// AFI is ipv4 or ipv6.
	AFI AFI `json:"afi"`
	// SAFI is unicast.
	SAFI SAFI `json:"safi"`
}

// BGPPeeringPolicyStatus lists what the operator generated from the policy.
type BGPPeeringPolicyStatus struct {
	// ObservedGeneration is the generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Conditions: Translated (the generated objects match the policy) and Ready (they
	// run on every selected node: no user-written BGPClusterConfig takes precedence).
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=8
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// Generated are the objects the operator keeps for the policy.
	// +optional
	// +kubebuilder:validation:MaxItems=600
	Generated []GeneratedObject `json:"generated,omitempty"`
}

// GeneratedObject names one object generated from a peering policy.
type GeneratedObject struct {
	// Kind is BGPClusterConfig, BGPPeerConfig or BGPAdvertisement.
	Kind string `json:"kind"`
	// Name is the object's name.
	Name string `json:"name"`
}

// BGPPeeringPolicy is the single-object peering policy, for simple clusters and users coming from CiliumBGPPeeringPolicy. The operator generates
// the split objects from it and keeps them as the policy says.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,shortName=bgpp,categories=kbgp
// +kubebuilder:validation:XValidation:rule="size(self.metadata.name) <= 47",message="the name of a BGPPeeringPolicy is at most 47 characters: it is part of the label value bgpp-<name>-<asn> (at most 63)"
// +kubebuilder:printcolumn:name="Translated",type=string,JSONPath=`.status.conditions[?(@.type=="Translated")].status`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type BGPPeeringPolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   BGPPeeringPolicySpec   `json:"spec"`
	Status BGPPeeringPolicyStatus `json:"status,omitempty"`
}

// BGPPeeringPolicyList is a list of BGPPeeringPolicy.
//
// +kubebuilder:object:root=true
type BGPPeeringPolicyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []BGPPeeringPolicy `json:"items"`
}
