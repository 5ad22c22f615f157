package bgp

import (
	"net/netip"
	"slices"
	"testing"
)

func TestComparePrefix(t *testing.T) {
	got := []netip.Prefix{
		netip.MustParsePrefix("2001:db8::/64"), netip.MustParsePrefix("10.0.0.0/24"),
		netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("9.0.0.0/8"),
	}
	slices.SortFunc(got, ComparePrefix)
	want := []netip.Prefix{
		netip.MustParsePrefix("9.0.0.0/8"), netip.MustParsePrefix("10.0.0.0/8"),
		netip.MustParsePrefix("10.0.0.0/24"), netip.MustParsePrefix("2001:db8::/64"),
	}
	if !slices.Equal(got, want) {
		t.Errorf("sorted = %v, want %v", got, want)
	}
}
