package peeringpolicy

import (
	"fmt"
	"net/netip"
	"strings"
)

// ClusterConfigName is the BGPClusterConfig generated for a policy.
func ClusterConfigName(policy string) string { return "bgpp-" + policy }

// AdvertisementName is the BGPAdvertisement generated for a virtual router; it is also
// the value of its kbgp.io/advert label, which the peer configs select.
func AdvertisementName(policy string, asn int64) string {
	return fmt.Sprintf("bgpp-%s-%d", policy, asn)
}

// PeerConfigName is the BGPPeerConfig generated for a neighbour: the advertisement's
// name and the address, whose ':' are written '-' because object names cannot hold
// them.
func PeerConfigName(policy string, asn int64, addr netip.Addr) string {
	return AdvertisementName(policy, asn) + "-" + addressInName(addr.String())
}

// peerName is the neighbour's peer name in the cluster config (a DNS label): its
// address with '.' and ':' written '-'.
func peerName(addr netip.Addr) string {
	return addressInName(strings.ReplaceAll(addr.String(), ".", "-"))
}

// addressInName writes an address (or one with its '.' already rewritten) for a Kubernetes name:
// ':' as '-', and a '0' before a leading or after a trailing '-' ("::1", "2001:db8::"),
// since a name may neither start nor end with one. The canonical form of an address
// never starts with "0::" or ends with "::0", so the mapping stays one to one.
func addressInName(s string) string {
	s = strings.ReplaceAll(s, ":", "-")
	if strings.HasPrefix(s, "-") {
		s = "0" + s
	}
	if strings.HasSuffix(s, "-") {
		s += "0"
	}
	return s
}

// neighborAddress parses a neighbour's peerAddress: an IP, or IP/32 or IP/128 as the
// document writes it.
func neighborAddress(s string) (netip.Addr, error) {
	if p, err := netip.ParsePrefix(s); err == nil {
		if p.Bits() != p.Addr().BitLen() {
			return netip.Addr{}, fmt.Errorf("peerAddress %q: a prefix must be a single address (/32 or /128)", s)
		}
		return p.Addr(), nil
	}
	a, err := netip.ParseAddr(s)
	if err != nil || a.Zone() != "" {
		return netip.Addr{}, fmt.Errorf("peerAddress %q is not an IP address", s)
	}
	return a, nil
}
