package v1alpha1

import (
	"net/netip"
	"testing"
)

func TestIPBlockRange(t *testing.T) {
	for _, tc := range []struct {
		block       IPBlock
		first, last string
		err         bool
	}{
		{block: IPBlock{CIDR: "203.0.113.0/28"}, first: "203.0.113.0", last: "203.0.113.15"},
		{block: IPBlock{CIDR: "203.0.113.7/32"}, first: "203.0.113.7", last: "203.0.113.7"},
		{block: IPBlock{CIDR: "2001:db8:1::/120"}, first: "2001:db8:1::", last: "2001:db8:1::ff"},
		{block: IPBlock{CIDR: "198.51.100.0/23"}, first: "198.51.100.0", last: "198.51.101.255"},
		{block: IPBlock{Start: "198.51.100.10", Stop: "198.51.100.20"}, first: "198.51.100.10", last: "198.51.100.20"},
		{block: IPBlock{Start: "198.51.100.10", Stop: "198.51.100.10"}, first: "198.51.100.10", last: "198.51.100.10"},
		{block: IPBlock{Start: "::ffff:198.51.100.1", Stop: "198.51.100.2"}, first: "198.51.100.1", last: "198.51.100.2"},
		{block: IPBlock{Start: "198.51.100.20", Stop: "198.51.100.10"}, err: true},
		{block: IPBlock{Start: "198.51.100.1", Stop: "2001:db8::1"}, err: true},
		{block: IPBlock{Start: "nonsense", Stop: "198.51.100.1"}, err: true},
		{block: IPBlock{CIDR: "198.51.100.0/33"}, err: true},
	} {
		r, err := tc.block.Range()
		if tc.err {
			if err == nil {
				t.Errorf("%+v: range %s-%s, want an error", tc.block, r.First, r.Last)
			}
			continue
		}
		if err != nil || r.First != netip.MustParseAddr(tc.first) || r.Last != netip.MustParseAddr(tc.last) {
			t.Errorf("%+v: got %s-%s, %v; want %s-%s", tc.block, r.First, r.Last, err, tc.first, tc.last)
		}
	}
}

func TestAddressRangeContains(t *testing.T) {
	r := AddressRange{First: netip.MustParseAddr("198.51.100.10"), Last: netip.MustParseAddr("198.51.100.20")}
	for addr, want := range map[string]bool{
		"198.51.100.10": true, "198.51.100.20": true, "198.51.100.15": true,
		"198.51.100.9": false, "198.51.100.21": false, "::ffff:198.51.100.15": false, "2001:db8::1": false,
	} {
		if got := r.Contains(netip.MustParseAddr(addr)); got != want {
			t.Errorf("Contains(%s) = %v, want %v", addr, got, want)
		}
	}
}
