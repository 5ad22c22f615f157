package bgp

import (
	"cmp"
	"net/netip"
)

// ComparePrefix orders prefixes by address, then by length, so that every list of
// prefixes kbgp sends, logs or prints comes out in one order whatever map it came from.
func ComparePrefix(a, b netip.Prefix) int {
	return cmp.Or(a.Addr().Compare(b.Addr()), cmp.Compare(a.Bits(), b.Bits()))
}
