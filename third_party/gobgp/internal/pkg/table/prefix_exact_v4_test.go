package table

import (
	"net/netip"
	"runtime"
	"testing"

	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// TestExactIPv4PrefixesInEightBytes checks kbgp patch "exact IPv4 prefixes in eight
// bytes": a set of 100,000 host routes keeps them in at most 32 bytes each beyond
// the entries it was made from (24 measured; 63 keyed by netip.Prefix), and an IPv4
// entry, a /32 and a shorter one, is found as itself only and listed.
func TestExactIPv4PrefixesInEightBytes(t *testing.T) {
	const n = 100_000
	hosts := make([]*Prefix, n)
	for i := range hosts {
		p := netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}), 32)
		hosts[i] = &Prefix{Prefix: p, AddressFamily: bgp.RF_IPv4_UC, MasklengthRangeMin: 32, MasklengthRangeMax: 32}
	}
	before := liveHeapOfTable()
	set, err := NewPrefixSetFromApiStruct("hosts", hosts)
	if err != nil {
		t.Fatal(err)
	}
	after := liveHeapOfTable()
	perEntry := float64(int64(after)-int64(before)) / n
	t.Logf("%.1f bytes an entry", perEntry)
	if perEntry > 32 {
		t.Errorf("a set of %d exact IPv4 prefixes: %.1f bytes an entry, want at most 32", n, perEntry)
	}
	runtime.KeepAlive(hosts)

	short := &Prefix{Prefix: netip.MustParsePrefix("10.200.0.0/16"), AddressFamily: bgp.RF_IPv4_UC, MasklengthRangeMin: 16, MasklengthRangeMax: 16}
	rhs, _ := NewPrefixSetFromApiStruct("hosts", []*Prefix{short})
	if err := set.Append(rhs); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		prefix string
		want   bool
	}{
		{"10.0.1.2/32", true},
		{"10.1.134.159/32", true},  // host 99,999
		{"10.1.134.160/32", false}, // host 100,000
		{"10.0.1.2/31", false},
		{"10.200.0.0/16", true},
		{"10.200.0.0/32", false},
		{"10.200.0.0/17", false},
	} {
		if got := set.exact.has(netip.MustParsePrefix(c.prefix)); got != c.want {
			t.Errorf("%s in the set: %v, want %v", c.prefix, got, c.want)
		}
	}
	if got := set.exact.sorted()[n]; got != short.Prefix {
		t.Errorf("the last entry listed is %s, want %s", got, short.Prefix)
	}
}
