// Package peeringpolicy translates a BGPPeeringPolicy, the single-object configuration
// (docs/design/README.md), into the split objects the rest of kbgp runs on: one
// BGPClusterConfig per policy, one BGPPeerConfig per neighbour and one BGPAdvertisement
// per virtual router, named and labelled as the API contract says. It is pure: the
// operator fetches the policy, calls Translate and applies the result.
package peeringpolicy
