package intent

import (
	"fmt"
	"net/netip"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// noNeighbour is the failure of a peer over an interface on which the agent found no
// link-local router: the interface does not exist, or no router announced itself on it
// yet. The peer is not started; like a peer in a missing VRF, it does not keep its
// previous configuration, since a session needs the neighbour's address.
func noNeighbour(iface string) kbgpv1.FailedResource {
	return kbgpv1.FailedResource{Kind: "Interface", Name: iface,
		Message: "no IPv6 link-local router found on this interface of the node; peers over it are not started"}
}

// peerAddress is where np is reached: its address, or the neighbour found on its
// interface (zoned with the interface, so the session's socket is scoped to it).
func peerAddress(in Input, np kbgpv1.BGPNodePeer) (netip.Addr, error) {
	if np.Interface != "" {
		addr, ok := in.InterfaceNeighbors[np.Interface]
		if !ok {
			return netip.Addr{}, fmt.Errorf("no neighbour on interface %s", np.Interface)
		}
		return addr.WithZone(np.Interface), nil
	}
	addr, err := netip.ParseAddr(np.PeerAddress)
	if err != nil {
		return netip.Addr{}, err
	}
	return addr.Unmap(), nil
}
