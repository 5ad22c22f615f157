package bgp

import "net/netip"

// PrefixKey is a prefix as a map key in 18 bytes instead of netip.Prefix's 32 (whose
// address carries a pointer for its zone, which a prefix never has): the address's 16
// bytes, its family and the prefix length. kbgp keeps several maps with an entry per
// route; with this key an entry of one of them holding a pointer takes 32 bytes
// instead of 40.
type PrefixKey [18]byte

// Family bytes of a PrefixKey; the zero key is the invalid prefix.
const (
	keyIPv4 = 4
	keyIPv6 = 6
)

// KeyOf is p's key; equal prefixes, and only they, have equal keys (an IPv4 prefix and
// its IPv4-mapped IPv6 form differ, as in netip).
func KeyOf(p netip.Prefix) PrefixKey {
	var k PrefixKey
	if !p.IsValid() {
		return k
	}
	a := p.Addr().As16()
	copy(k[:16], a[:])
	k[16] = byte(p.Bits())
	k[17] = keyIPv6
	if p.Addr().Is4() {
		k[17] = keyIPv4
	}
	return k
}

// Prefix is the prefix k is the key of.
func (k PrefixKey) Prefix() netip.Prefix {
	a := netip.AddrFrom16([16]byte(k[:16]))
	switch k[17] {
	case keyIPv4:
		return netip.PrefixFrom(a.Unmap(), int(k[16]))
	case keyIPv6:
		return netip.PrefixFrom(a, int(k[16]))
	}
	return netip.Prefix{}
}
