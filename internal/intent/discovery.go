package intent

import (
	"fmt"
	"net/netip"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// undiscovered is the failure of a peer whose address the agent has to find on the
// node and did not: no link-local router on its interface, or no default route of its
// family. The peer is not started; like a peer in a missing VRF, it does not keep its
// previous configuration, since a session needs the neighbour's address.
func undiscovered(in Input, np kbgpv1.BGPNodePeer) (kbgpv1.FailedResource, bool) {
	if np.Interface != "" {
		if _, ok := in.InterfaceNeighbors[np.Interface]; !ok {
			return noNeighbour(np.Interface), true
		}
	}
	if afi, ok := defaultGatewayFamily(np); ok {
		if _, ok := in.DefaultGateways[afi]; !ok {
			return noDefaultGateway(afi), true
		}
	}
	return kbgpv1.FailedResource{}, false
}

func noNeighbour(iface string) kbgpv1.FailedResource {
	return kbgpv1.FailedResource{Kind: "Interface", Name: iface,
		Message: "no IPv6 link-local router found on this interface of the node; peers over it are not started"}
}

func noDefaultGateway(afi kbgpv1.AFI) kbgpv1.FailedResource {
	return kbgpv1.FailedResource{Kind: "DefaultGateway", Name: string(afi),
		Message: "the node has no default route of this family with a gateway; peers discovering it are not started"}
}

// defaultGatewayFamily is the family of the default route whose gateway np is, when
// np is found that way.
func defaultGatewayFamily(np kbgpv1.BGPNodePeer) (kbgpv1.AFI, bool) {
	ad := np.AutoDiscovery
	if ad == nil || ad.Mode != kbgpv1.AutoDiscoveryDefaultGateway || ad.DefaultGateway == nil {
		return "", false
	}
	return ad.DefaultGateway.AddressFamily, true
}

// peerAddress is where np is reached: its address, the router found on its interface
// (zoned with the interface, so the session's socket is scoped to it), or its family's
// default gateway.
func peerAddress(in Input, np kbgpv1.BGPNodePeer) (netip.Addr, error) {
	if np.Interface != "" {
		addr, ok := in.InterfaceNeighbors[np.Interface]
		if !ok {
			return netip.Addr{}, fmt.Errorf("no neighbour on interface %s", np.Interface)
		}
		return addr.WithZone(np.Interface), nil
	}
	if afi, ok := defaultGatewayFamily(np); ok {
		addr, ok := in.DefaultGateways[afi]
		if !ok {
			return netip.Addr{}, fmt.Errorf("no %s default gateway", afi)
		}
		return addr, nil
	}
	addr, err := netip.ParseAddr(np.PeerAddress)
	if err != nil {
		return netip.Addr{}, err
	}
	return addr.Unmap(), nil
}
