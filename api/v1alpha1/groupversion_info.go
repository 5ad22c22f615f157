// Package v1alpha1 holds the kbgp.io/v1alpha1 API: the cluster-scoped kinds users write
// (BGPClusterConfig, BGPPeerConfig, BGPAdvertisement, BGPNodeConfigOverride,
// LoadBalancerIPPool, and BGPPeeringPolicy, which the operator translates into the
// first three) and the
// per-node BGPNodeConfig that the operator renders and the agent reports on.
//
// Every rule that a single object can reveal is declared here as OpenAPI bounds or CEL
// (x-kubernetes-validations), so the API server refuses bad input with a message that
// names the field; cross-object problems are reported in status instead.
//
// +kubebuilder:object:generate=true
// +groupName=kbgp.io
package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ClusterConfigLabel is set on every BGPNodeConfig to the name of the
// BGPClusterConfig it was rendered from.
const ClusterConfigLabel = "kbgp.io/cluster-config"

var (
	// GroupVersion is the group and version of every kind in this package.
	GroupVersion = schema.GroupVersion{Group: "kbgp.io", Version: "v1alpha1"}

	// SchemeBuilder registers the kinds of this package with a runtime.Scheme. It is
	// apimachinery's builder, so this package imports nothing but apimachinery.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)

	// AddToScheme adds the kinds of this package to a runtime.Scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

func addKnownTypes(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion,
		&BGPClusterConfig{}, &BGPClusterConfigList{},
		&BGPPeerConfig{}, &BGPPeerConfigList{},
		&BGPAdvertisement{}, &BGPAdvertisementList{},
		&BGPNodeConfig{}, &BGPNodeConfigList{},
		&BGPNodeConfigOverride{}, &BGPNodeConfigOverrideList{},
		&LoadBalancerIPPool{}, &LoadBalancerIPPoolList{},
		&BGPPeeringPolicy{}, &BGPPeeringPolicyList{},
	)
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}
