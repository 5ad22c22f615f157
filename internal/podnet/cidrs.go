package podnet

import (
	"fmt"
	"net/netip"
)

// PodCIDRs reads a Node's pod CIDRs: spec.podCIDRs, else the older spec.podCIDR. Each
// must be a network address (no host bits), at most one per family. A bad one is an
// error naming it: the caller keeps the last good configuration rather than write one
// that silently drops a family.
func PodCIDRs(podCIDRs []string, podCIDR string) ([]netip.Prefix, error) {
	in := podCIDRs
	if len(in) == 0 && podCIDR != "" {
		in = []string{podCIDR}
	}
	var out []netip.Prefix
	seen := map[bool]string{}
	for _, s := range in {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return nil, fmt.Errorf("pod CIDR %q: %w", s, err)
		}
		if p != p.Masked() {
			return nil, fmt.Errorf("pod CIDR %q has host bits set (the network is %s)", s, p.Masked())
		}
		if other, dup := seen[p.Addr().Is4()]; dup {
			return nil, fmt.Errorf("pod CIDRs %q and %q are of one family: at most one per family", other, s)
		}
		seen[p.Addr().Is4()] = s
		out = append(out, p)
	}
	return out, nil
}
