// Package intent computes, without side effects, what BGP one node must run: its
// BGPNodeConfig, the BGPPeerConfigs and Secrets the peers reference, its Node and the
// BGPAdvertisements go in; a bgp.Desired, the resolved router IDs and the resources that
// could not be applied come out. A peer that cannot be built from the current objects
// keeps its previous configuration when it had one (the last good configuration keeps
// running) and is reported either way. What each peer is sent of the Services is
// decided by the rules built here and kept, per Service, by an exports.Index that
// Build returns filled and the caller then owns.
package intent
