package v1alpha1

import (
	"fmt"
	"net/netip"
)

// AddressRange is an inclusive range of addresses of one family: what an IPBlock
// holds.
// +kubebuilder:object:generate=false
type AddressRange struct {
	First, Last netip.Addr
}

// Contains reports whether a lies in the range.
func (r AddressRange) Contains(a netip.Addr) bool {
	return a.Is4() == r.First.Is4() && r.First.Compare(a) <= 0 && a.Compare(r.Last) <= 0
}

// Range returns the addresses of the block. The allocator and the agent (which
// announces load-balancer addresses only inside pools) both read blocks through it, so
// they agree on what a block holds. It fails on what the schema cannot refuse alone: a
// range whose stop lies below its start.
func (b IPBlock) Range() (AddressRange, error) {
	if b.CIDR != "" {
		p, err := netip.ParsePrefix(string(b.CIDR))
		if err != nil {
			return AddressRange{}, fmt.Errorf("cidr %q: %w", b.CIDR, err)
		}
		p = p.Masked()
		return AddressRange{First: p.Addr(), Last: LastAddr(p)}, nil
	}
	first, err := netip.ParseAddr(string(b.Start))
	if err != nil {
		return AddressRange{}, fmt.Errorf("start %q: %w", b.Start, err)
	}
	last, err := netip.ParseAddr(string(b.Stop))
	if err != nil {
		return AddressRange{}, fmt.Errorf("stop %q: %w", b.Stop, err)
	}
	first, last = first.Unmap(), last.Unmap()
	if first.Is4() != last.Is4() {
		return AddressRange{}, fmt.Errorf("start %s and stop %s are of different families", first, last)
	}
	if last.Less(first) {
		return AddressRange{}, fmt.Errorf("stop %s lies below start %s", last, first)
	}
	return AddressRange{First: first, Last: last}, nil
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
