// Package agent runs on every node: a controller-runtime manager whose cache holds only
// this node's BGPNodeConfig and Node, the cluster's BGPPeerConfigs and BGPAdvertisements
// and the Secrets of the agent's namespace. Every event maps to one reconcile key (the
// node name), and a reconcile is fetch → intent.Build → speakers.Set.Apply → status.
package agent
