package v1alpha1

import (
	"net/netip"
	"testing"
)

func TestIPBlockBounds(t *testing.T) {
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
		first, last, err := tc.block.Bounds()
		if tc.err {
			if err == nil {
				t.Errorf("%+v: bounds %s-%s, want an error", tc.block, first, last)
			}
			continue
		}
		if err != nil || first != netip.MustParseAddr(tc.first) || last != netip.MustParseAddr(tc.last) {
			t.Errorf("%+v: got %s-%s, %v; want %s-%s", tc.block, first, last, err, tc.first, tc.last)
		}
	}
}
