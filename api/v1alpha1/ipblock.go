package v1alpha1

import (
	"fmt"
	"net/netip"
)

// Bounds returns the first and last address of the block. The allocator and the agent
// (which announces load-balancer addresses only inside pools) both read blocks through
// it, so they agree on what a block holds. It fails on what the schema cannot refuse
// alone: a range whose stop lies below its start.
func (b IPBlock) Bounds() (first, last netip.Addr, err error) {
	if b.CIDR != "" {
		p, err := netip.ParsePrefix(string(b.CIDR))
		if err != nil {
			return netip.Addr{}, netip.Addr{}, fmt.Errorf("cidr %q: %w", b.CIDR, err)
		}
		p = p.Masked()
		return p.Addr(), LastAddr(p), nil
	}
	first, err = netip.ParseAddr(string(b.Start))
	if err != nil {
		return netip.Addr{}, netip.Addr{}, fmt.Errorf("start %q: %w", b.Start, err)
	}
	last, err = netip.ParseAddr(string(b.Stop))
	if err != nil {
		return netip.Addr{}, netip.Addr{}, fmt.Errorf("stop %q: %w", b.Stop, err)
	}
	first, last = first.Unmap(), last.Unmap()
	if first.Is4() != last.Is4() {
		return netip.Addr{}, netip.Addr{}, fmt.Errorf("start %s and stop %s are of different families", first, last)
	}
	if last.Less(first) {
		return netip.Addr{}, netip.Addr{}, fmt.Errorf("stop %s lies below start %s", last, first)
	}
	return first, last, nil
}

// LastAddr is the highest address of a masked prefix.
func LastAddr(p netip.Prefix) netip.Addr {
	b := p.Addr().AsSlice()
	for i := p.Bits(); i < len(b)*8; i++ {
		b[i/8] |= 0x80 >> (i % 8)
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}
