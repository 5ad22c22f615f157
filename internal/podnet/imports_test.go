package podnet

import (
	"net/netip"
	"testing"
)

func TestImportRejection(t *testing.T) {
	cluster := []netip.Prefix{netip.MustParsePrefix("10.244.0.0/16"), netip.MustParsePrefix("2001:db8:40::/48")}
	own := []netip.Prefix{netip.MustParsePrefix("10.244.1.0/24"), netip.MustParsePrefix("2001:db8:40:1::/64")}
	v4, v6 := netip.MustParseAddr("10.0.0.2"), netip.MustParseAddr("2001:db8::2")
	tests := []struct {
		prefix  string
		nextHop netip.Addr
		want    string
	}{
		{"10.244.2.0/24", v4, ""},
		{"2001:db8:40:2::/64", v6, ""},
		{"10.244.1.0/24", v4, RejectOwnPodCIDR},
		{"10.244.1.128/25", v4, RejectOwnPodCIDR},
		{"10.244.0.0/16", v4, RejectOwnPodCIDR},
		{"10.0.0.0/8", v4, RejectOutsidePodRanges},
		{"0.0.0.0/0", v4, RejectOutsidePodRanges},
		{"::/0", v6, RejectOutsidePodRanges},
		{"192.168.1.0/24", v4, RejectOutsidePodRanges},
		{"10.244.3.0/24", netip.Addr{}, RejectNoNextHop},
		{"10.244.3.0/24", v6, RejectNoNextHop},
	}
	for _, tc := range tests {
		if got := ImportRejection(netip.MustParsePrefix(tc.prefix), tc.nextHop, cluster, own); got != tc.want {
			t.Errorf("%s via %v: %q, want %q", tc.prefix, tc.nextHop, got, tc.want)
		}
	}
	if got := ImportRejection(netip.MustParsePrefix("10.244.2.0/24"), v4, nil, own); got != RejectOutsidePodRanges {
		t.Errorf("without cluster ranges: %q, want %s", got, RejectOutsidePodRanges)
	}
}
