package bgp

import (
	"net/netip"
	"testing"
)

// TestPrefixKeyRoundTrips: a key gives back its prefix, and two prefixes share a key
// only when they are equal (the IPv4-mapped form and an unmasked address included).
func TestPrefixKeyRoundTrips(t *testing.T) {
	prefixes := []netip.Prefix{
		{},
		netip.MustParsePrefix("0.0.0.0/0"),
		netip.MustParsePrefix("10.0.0.1/32"),
		netip.MustParsePrefix("10.0.0.1/24"),
		netip.MustParsePrefix("10.0.0.0/24"),
		netip.MustParsePrefix("::ffff:10.0.0.1/128"),
		netip.MustParsePrefix("::/0"),
		netip.MustParsePrefix("2001:db8::1/128"),
		netip.MustParsePrefix("2001:db8::/64"),
	}
	for i, p := range prefixes {
		if got := KeyOf(p).Prefix(); got != p {
			t.Errorf("KeyOf(%v).Prefix() = %v", p, got)
		}
		for j, q := range prefixes {
			if (KeyOf(p) == KeyOf(q)) != (i == j) {
				t.Errorf("%v and %v: equal keys %v", p, q, KeyOf(p) == KeyOf(q))
			}
		}
	}
}

// FuzzPrefixKey: a prefix's key gives the prefix back, and a PrefixMap holds the prefix
// as itself, whatever its family, length or validity.
func FuzzPrefixKey(f *testing.F) {
	f.Add([]byte{10, 0, 0, 1}, 32)
	f.Add(make([]byte, 16), 128)
	f.Fuzz(func(t *testing.T, b []byte, bits int) {
		a, ok := netip.AddrFromSlice(b)
		if !ok {
			return
		}
		p := netip.PrefixFrom(a, bits)
		var m PrefixMap[bool]
		m.Set(p, true)
		if v, ok := m.Get(p); !v || !ok || m.Len() != 1 {
			t.Fatalf("%v: Get %v, %v, Len %d after Set", p, v, ok, m.Len())
		}
		m.Delete(p)
		if m.Len() != 0 {
			t.Fatalf("%v: Len %d after Delete", p, m.Len())
		}
		if !p.IsValid() {
			return // the map keys are valid prefixes; all invalid ones share the zero key
		}
		if got := KeyOf(p).Prefix(); got != p {
			t.Errorf("KeyOf(%v).Prefix() = %v", p, got)
		}
		m.Set(p, true)
		for q := range m.All() {
			if q != p {
				t.Errorf("a map of %v yields %v", p, q)
			}
		}
	})
}
