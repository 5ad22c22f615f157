package routerid

import (
	"errors"
	"fmt"
	"net/netip"
	"regexp"

	corev1 "k8s.io/api/core/v1"
)

// maxNodeNameLength is Kubernetes' bound on a Node name (a DNS subdomain).
const maxNodeNameLength = 253

// nodeNamePattern is the DNS-subdomain rule Kubernetes applies to Node names.
var nodeNamePattern = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

// validateNodeName rejects names no Node can have. The name feeds the hash, status and
// every message, so a name with control characters never gets that far.
func validateNodeName(name string) error {
	if name == "" {
		return errors.New("node name is empty")
	}
	if len(name) > maxNodeNameLength {
		return fmt.Errorf("node name is %d bytes, longer than the %d allowed", len(name), maxNodeNameLength)
	}
	if !nodeNamePattern.MatchString(name) {
		return fmt.Errorf("node name %q is not a DNS subdomain", name)
	}
	return nil
}

// firstUsableIPv4 returns the first address of the given type that is IPv4 and passes
// Validate. Unusable entries are skipped rather than fatal: kubelets and cloud
// providers list addresses in no promised order, and the list may hold IPv6, loopback
// or malformed entries next to a good one.
func firstUsableIPv4(addrs []corev1.NodeAddress, typ corev1.NodeAddressType) (netip.Addr, bool) {
	for _, a := range addrs {
		if a.Type != typ {
			continue
		}
		addr, err := netip.ParseAddr(a.Address)
		if err == nil && Validate(addr) == nil {
			return addr, true
		}
	}
	return netip.Addr{}, false
}
