// Package convert translates the BGP configuration of other projects into kbgp
// objects: Cilium's CiliumBGPPeeringPolicy (cilium.io/v2alpha1 and v2) and its v2 kinds
// (CiliumBGPClusterConfig, CiliumBGPPeerConfig, CiliumBGPAdvertisement,
// CiliumBGPNodeConfigOverride) and CiliumLoadBalancerIPPool, and MetalLB's BGPPeer,
// BGPAdvertisement, IPAddressPool, Community and BFDProfile (metallb.io). It is what
// `kubectl bgp convert` runs.
//
// The package is pure: it reads bytes and returns kbgp API objects and warnings, with
// no Kubernetes client, so it runs anywhere and every case is a table test. It imports
// neither Cilium's nor MetalLB's Go modules: their objects are read as the maps their
// YAML decodes to, which also lets it read objects of versions it was not built with.
//
// Nothing is dropped in silence. Every field the conversion reads is recorded
// (fields.go); what was not read, was read but has no kbgp equivalent, or was mapped
// only approximately becomes a Warning naming the object and the field path. The only
// fields ignored without a warning are those that describe a live object rather than
// configuration: status, and the metadata the API server writes (uid,
// resourceVersion, generation, creationTimestamp, managedFields, selfLink, the
// deletion fields) and kubectl's last-applied-configuration annotation; and
// metadata.namespace, because every kbgp kind is cluster-scoped.
package convert
