package podnet

import (
	"net/netip"
	"testing"
)

func TestImportRejection(t *testing.T) {
	pfx, addr := netip.MustParsePrefix, netip.MustParseAddr
	scope := ImportScope{
		Ranges: []netip.Prefix{pfx("10.244.0.0/16"), pfx("2001:db8:40::/48")},
		NodePodCIDRs: []netip.Prefix{pfx("10.244.1.0/24"), pfx("10.244.2.0/24"), pfx("10.244.3.0/24"), pfx("10.99.0.0/24"),
			pfx("2001:db8:40:1::/64"), pfx("2001:db8:40:2::/64")},
		Own:   []netip.Prefix{pfx("10.244.1.0/24"), pfx("2001:db8:40:1::/64")},
		Local: []netip.Prefix{pfx("10.0.0.1/24"), pfx("10.244.1.1/24"), pfx("2001:db8::1/64"), pfx("10.5.5.5/32")},
	}
	v4, v6 := addr("10.0.0.2"), addr("2001:db8::2")
	tests := []struct {
		prefix  string
		nextHop netip.Addr
		want    string
	}{
		{"10.244.2.0/24", v4, ""},
		{"2001:db8:40:2::/64", v6, ""},
		{"10.244.2.0/24", addr("::ffff:10.0.0.2"), ""},
		// Only a Node's pod CIDR, exactly.
		{"10.244.2.17/32", v4, RejectNotNodePodCIDR},
		{"10.244.2.0/25", v4, RejectNotNodePodCIDR},
		{"10.244.4.0/24", v4, RejectNotNodePodCIDR},
		{"2001:db8:40:2::/80", v6, RejectNotNodePodCIDR},
		// A Node's pod CIDR outside --cluster-pod-cidrs.
		{"10.99.0.0/24", v4, RejectOutsidePodRanges},
		{"10.0.0.0/8", v4, RejectOutsidePodRanges},
		{"0.0.0.0/0", v4, RejectOutsidePodRanges},
		{"::/0", v6, RejectOutsidePodRanges},
		{"192.168.1.0/24", v4, RejectOutsidePodRanges},
		// The node's own.
		{"10.244.1.0/24", v4, RejectOwnPodCIDR},
		{"10.244.1.128/25", v4, RejectOwnPodCIDR},
		{"10.244.0.0/16", v4, RejectOwnPodCIDR},
		{"2001:db8:40:1::/64", v6, RejectOwnPodCIDR},
		// Next hops.
		{"10.244.3.0/24", netip.Addr{}, RejectNoNextHop},
		{"10.244.3.0/24", v6, RejectNoNextHop},
		{"10.244.3.0/24", addr("0.0.0.0"), RejectNoNextHop},
		{"10.244.3.0/24", addr("127.0.0.1"), RejectLocalNextHop},
		{"10.244.3.0/24", addr("127.3.4.5"), RejectLocalNextHop},
		{"2001:db8:40:2::/64", addr("::1"), RejectLocalNextHop},
		{"10.244.3.0/24", addr("10.0.0.1"), RejectLocalNextHop},
		{"10.244.3.0/24", addr("10.5.5.5"), RejectLocalNextHop},
		{"2001:db8:40:2::/64", addr("2001:db8::1"), RejectLocalNextHop},
		{"10.244.3.0/24", addr("10.244.1.17"), RejectLocalNextHop},
		{"2001:db8:40:2::/64", addr("2001:db8:40:1::17"), RejectLocalNextHop},
		{"10.244.3.0/24", addr("224.0.0.5"), RejectNonUnicast},
		{"10.244.3.0/24", addr("239.1.1.1"), RejectNonUnicast},
		{"2001:db8:40:2::/64", addr("ff02::1"), RejectNonUnicast},
		{"10.244.3.0/24", addr("255.255.255.255"), RejectNonUnicast},
		{"10.244.3.0/24", addr("10.0.0.255"), RejectNonUnicast},
	}
	for _, tc := range tests {
		if got := ImportRejection(pfx(tc.prefix), tc.nextHop, scope); got != tc.want {
			t.Errorf("%s via %v: %q, want %q", tc.prefix, tc.nextHop, got, tc.want)
		}
	}
	// Without --cluster-pod-cidrs the Nodes' pod CIDRs are the ranges.
	noRanges := scope
	noRanges.Ranges = nil
	for prefix, want := range map[string]string{
		"10.99.0.0/24":   "",
		"10.244.2.17/32": RejectNotNodePodCIDR,
		"10.244.0.0/16":  RejectOutsidePodRanges,
		"0.0.0.0/0":      RejectOutsidePodRanges,
		"10.244.1.0/25":  RejectOwnPodCIDR,
	} {
		if got := ImportRejection(pfx(prefix), v4, noRanges); got != want {
			t.Errorf("without ranges, %s: %q, want %q", prefix, got, want)
		}
	}
	if got := ImportRejection(pfx("10.244.2.0/24"), v4, ImportScope{Ranges: scope.Ranges, Own: scope.Own}); got != RejectNotNodePodCIDR {
		t.Errorf("no Node known: %q, want %s", got, RejectNotNodePodCIDR)
	}
}
