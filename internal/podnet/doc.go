// Package podnet is the node side of kbgp as the pod network (agent --pod-network):
// the CNI network configuration written from the Node's pod CIDRs, as kubenet wrote
// its own but with one host-local range per CIDR and no gateway computed from a CIDR
// (the kbgp-cni plugin takes each gateway from the bridge plugin's result). The
// configuration is pure and golden-tested; the agent writes it.
package podnet
