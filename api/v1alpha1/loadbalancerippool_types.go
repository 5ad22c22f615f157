package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// LoadBalancerClass is the spec.loadBalancerClass kbgp serves; Services with no class
// are served too.
const LoadBalancerClass = "kbgp.io/bgp"

// Annotations a Service uses to steer its load-balancer addresses.
const (
	// LoadBalancerIPsAnnotation requests addresses, comma-separated, at most one per
	// family. It wins over spec.loadBalancerIP.
	LoadBalancerIPsAnnotation = "kbgp.io/load-balancer-ips"
	// SharingKeyAnnotation lets Services share an address: those with the same key share
	// it when their ports do not clash.
	SharingKeyAnnotation = "kbgp.io/sharing-key"
)

// LoadBalancerIPPoolSpec says which addresses the pool hands out and to which Services.
type LoadBalancerIPPoolSpec struct {
	// Blocks are the pool's addresses, IPv4 and IPv6 mixed as needed.
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	Blocks []IPBlock `json:"blocks"`

	// ServiceSelector selects the Services the pool serves by label; the pseudo-labels
	// kbgp.io/service-name and kbgp.io/service-namespace match a Service's name and
	// namespace. Nil serves every Service.
	// +optional
	ServiceSelector *LabelSelector `json:"serviceSelector,omitempty"`

	// AvoidBuggyIPs skips IPv4 addresses ending in .0 and .255, which some old clients
	// and routers drop.
	// +optional
	AvoidBuggyIPs bool `json:"avoidBuggyIPs,omitempty"`

	// Disabled stops new allocations from the pool; addresses already given stay.
	// +optional
	Disabled bool `json:"disabled,omitempty"`
}

// IPBlock is a CIDR or an inclusive start–stop range of one family.
//
// +kubebuilder:validation:XValidation:rule="has(self.cidr) != (has(self.start) || has(self.stop))",message="a block is either cidr or start and stop"
// +kubebuilder:validation:XValidation:rule="has(self.start) == has(self.stop)",message="start and stop go together"
// +kubebuilder:validation:XValidation:rule="!has(self.start) || !has(self.stop) || !isIP(self.start) || !isIP(self.stop) || ip(self.start).family() == ip(self.stop).family()",message="start and stop must be of one family"
type IPBlock struct {
	// CIDR is the block as a prefix; every address of it is handed out (see
	// avoidBuggyIPs).
	// +optional
	CIDR CIDR `json:"cidr,omitempty"`

	// Start is the first address of a range.
	// +optional
	Start IPAddress `json:"start,omitempty"`

	// Stop is the last address of a range; not below Start.
	// +optional
	Stop IPAddress `json:"stop,omitempty"`
}

// LoadBalancerIPPoolStatus reports the pool's use.
type LoadBalancerIPPoolStatus struct {
	// Conditions: Ready, Exhausted and Overlapping.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=8
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// Addresses counts the pool's addresses, in all and per family.
	// +optional
	Addresses *PoolAddresses `json:"addresses,omitempty"`
}

// PoolAddresses counts a pool's addresses. Totals saturate at 2^63-1 (an IPv6 /64
// holds more).
type PoolAddresses struct {
	// Total is how many addresses the pool can hand out.
	Total int64 `json:"total"`
	// Used is how many are held by Services.
	Used int64 `json:"used"`
	// IPv4 counts the IPv4 addresses alone.
	// +optional
	IPv4 *AddressCount `json:"ipv4,omitempty"`
	// IPv6 counts the IPv6 addresses alone.
	// +optional
	IPv6 *AddressCount `json:"ipv6,omitempty"`
}

// AddressCount is the total and used addresses of one family.
type AddressCount struct {
	Total int64 `json:"total"`
	Used  int64 `json:"used"`
}

// LoadBalancerIPPool is a set of addresses the operator hands out to LoadBalancer
// Services (status.loadBalancer.ingress) whose class is unset or kbgp.io/bgp.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,shortName=lbpool,categories=kbgp
// +kubebuilder:printcolumn:name="Used",type=integer,JSONPath=`.status.addresses.used`
// +kubebuilder:printcolumn:name="Total",type=integer,JSONPath=`.status.addresses.total`
// +kubebuilder:printcolumn:name="Exhausted",type=string,JSONPath=`.status.conditions[?(@.type=="Exhausted")].status`
// +kubebuilder:printcolumn:name="Disabled",type=boolean,JSONPath=`.spec.disabled`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type LoadBalancerIPPool struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   LoadBalancerIPPoolSpec   `json:"spec"`
	Status LoadBalancerIPPoolStatus `json:"status,omitempty"`
}

// LoadBalancerIPPoolList is a list of LoadBalancerIPPool.
//
// +kubebuilder:object:root=true
type LoadBalancerIPPoolList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []LoadBalancerIPPool `json:"items"`
}
