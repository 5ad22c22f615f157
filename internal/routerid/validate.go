package routerid

import (
	"errors"
	"fmt"
	"net/netip"
)

// unusableRanges are the IPv4 ranges no router ID may come from, each with the word
// used in errors. Validate checks an address against them and ParsePool rejects a pool
// that overlaps one, so the two rules cannot drift apart.
var unusableRanges = [...]struct {
	prefix netip.Prefix
	what   string
}{
	{netip.MustParsePrefix("0.0.0.0/32"), "unspecified"},
	{netip.MustParsePrefix("127.0.0.0/8"), "loopback"},
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local"},
	{netip.MustParsePrefix("224.0.0.0/4"), "multicast"},
	{netip.MustParsePrefix("255.255.255.255/32"), "broadcast"},
}

// Validate reports whether addr can be a BGP router ID: an IPv4 address (BGP
// identifiers are 32 bits, RFC 6286; an IPv4-mapped IPv6 address is not accepted)
// that is not unspecified, loopback, link-local, multicast or the broadcast address.
// These identify no router, or identify every router, so peers would reject or
// confuse the session.
func Validate(addr netip.Addr) error {
	if !addr.IsValid() {
		return errors.New("router ID is empty")
	}
	if !addr.Is4() {
		// The zone is dropped from the message: netip accepts any bytes in an IPv6
		// zone, newlines and NUL included, and this text reaches logs and events.
		return fmt.Errorf("router ID %s is not an IPv4 address: BGP router IDs are 32-bit", addr.WithZone(""))
	}
	for _, r := range unusableRanges {
		if r.prefix.Contains(addr) {
			return fmt.Errorf("router ID %s is in the %s range %s", addr, r.what, r.prefix)
		}
	}
	return nil
}
