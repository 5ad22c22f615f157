// Package agent runs on every node; it is the wiring only. Run builds a
// controller-runtime manager whose cache holds only this node's BGPNodeConfig and Node,
// the cluster's BGPPeerConfigs, BGPAdvertisements, LoadBalancerIPPools, Services and
// EndpointSlices; the BGP speakers; the node's BGP reconcile (nodebgp), what the agent
// reports (report), its restart state (internal/checkpoint) and, with --pod-network,
// the pod network (internal/podnet/controller). It runs them until its context ends
// and then stops them in one shutdown sequence.
package agent
