package intent

import (
	"fmt"
	"net/netip"
	"slices"

	corev1 "k8s.io/api/core/v1"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
)

// nodeAddressRoutes are the host routes of family fam a NodeAddress entry announces:
// the global addresses of its interface (as the agent found them), or the Node's
// InternalIPs.
func nodeAddressRoutes(in Input, na *kbgpv1.NodeAddressAdvertisement, fam bgp.Family) []netip.Prefix {
	var addrs []netip.Addr
	if na != nil && na.Interface != "" {
		addrs = in.InterfaceAddresses[na.Interface]
	} else {
		addrs = internalIPs(in.Node)
	}
	var out []netip.Prefix
	for _, a := range addrs {
		a = a.Unmap()
		if a.Is6() == (fam == bgp.FamilyIPv6Unicast) && a.IsGlobalUnicast() {
			out = append(out, netip.PrefixFrom(a, a.BitLen()))
		}
	}
	return out
}

// internalIPs are node's InternalIP addresses.
func internalIPs(node *corev1.Node) []netip.Addr {
	var out []netip.Addr
	for _, a := range node.Status.Addresses {
		if addr, err := netip.ParseAddr(a.Address); err == nil && a.Type == corev1.NodeInternalIP {
			out = append(out, addr)
		}
	}
	return out
}

// AddressInterfaces are the interfaces whose addresses NodeAddress entries of ads
// announce: the agent reads their addresses into Input.InterfaceAddresses.
func AddressInterfaces(ads []kbgpv1.BGPAdvertisement) []string {
	var out []string
	for _, ad := range ads {
		for _, a := range ad.Spec.Advertisements {
			if a.AdvertisementType == kbgpv1.AdvertisementNodeAddress && a.NodeAddress != nil && a.NodeAddress.Interface != "" {
				out = append(out, a.NodeAddress.Interface)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// missingAddressInterfaces reports the advertisements whose NodeAddress interface is
// not on the node: nothing of them is announced.
func missingAddressInterfaces(in Input) []kbgpv1.FailedResource {
	var out []kbgpv1.FailedResource
	for _, ad := range in.Advertisements {
		for _, a := range ad.Spec.Advertisements {
			if a.AdvertisementType != kbgpv1.AdvertisementNodeAddress || a.NodeAddress == nil || a.NodeAddress.Interface == "" {
				continue
			}
			if _, ok := in.InterfaceAddresses[a.NodeAddress.Interface]; !ok {
				out = append(out, kbgpv1.FailedResource{Kind: "BGPAdvertisement", Name: ad.Name,
					Message: fmt.Sprintf("interface %s is not on this node: its addresses are not announced", a.NodeAddress.Interface)})
			}
		}
	}
	return out
}
