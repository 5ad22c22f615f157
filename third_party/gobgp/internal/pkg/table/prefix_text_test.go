package table

import (
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// TestNoPrefixTextKeptAPath checks kbgp patch "no prefix text kept a path": a path
// is two allocations (itself and its origin info; four when it made its prefix's
// text), its destination key still names its prefix by that text, and
// CreateUpdateMsgFromPaths, which no longer keys paths by it, still packs only the
// last action on each destination, of an IP prefix and of another NLRI.
func TestNoPrefixTextKeptAPath(t *testing.T) {
	v4, _ := bgp.NewIPAddrPrefix(netip.MustParsePrefix("10.1.2.3/32"))
	v6, _ := bgp.NewIPAddrPrefix(netip.MustParsePrefix("2001:db8::/64"))
	rd := bgp.NewRouteDistinguisherTwoOctetAS(65000, 1)
	vpn, _ := bgp.NewLabeledVPNIPAddrPrefix(netip.MustParsePrefix("10.9.0.0/24"), *bgp.NewMPLSLabelStack(100), rd)
	nexthop, _ := bgp.NewPathAttributeNextHop(netip.MustParseAddr("10.255.0.1"))
	attrs := []bgp.PathAttributeInterface{bgp.NewPathAttributeOrigin(0), nexthop}

	allocs := testing.AllocsPerRun(100, func() {
		NewPath(bgp.RF_IPv4_UC, nil, bgp.PathNLRI{NLRI: v4}, false, attrs, time.Now(), false)
	})
	require.LessOrEqual(t, allocs, 2.0, "allocations a path")

	for _, c := range []struct {
		family bgp.Family
		nlri   bgp.NLRI
		text   string
	}{
		{bgp.RF_IPv4_UC, v4, "10.1.2.3/32"},
		{bgp.RF_IPv6_UC, v6, "2001:db8::/64"},
		{bgp.RF_IPv4_VPN, vpn, vpn.String()},
	} {
		path := NewPath(c.family, nil, bgp.PathNLRI{NLRI: c.nlri}, false, attrs, time.Now(), false)
		require.Equal(t, PathDestLocalKey{Family: c.family, Prefix: c.text}, path.GetDestLocalKey())
	}
	require.Equal(t, PathDestLocalKey{Family: bgp.RF_IPv4_UC}, NewEOR(bgp.RF_IPv4_UC).GetDestLocalKey())

	other, _ := bgp.NewIPAddrPrefix(netip.MustParsePrefix("10.1.2.4/32"))
	ipPaths := []*Path{
		NewPath(bgp.RF_IPv4_UC, nil, bgp.PathNLRI{NLRI: v4}, false, attrs, time.Now(), false),
		NewPath(bgp.RF_IPv4_UC, nil, bgp.PathNLRI{NLRI: other}, false, attrs, time.Now(), false),
		NewPath(bgp.RF_IPv4_UC, nil, bgp.PathNLRI{NLRI: v4}, true, nil, time.Now(), false),
	}
	got := packedActions(t, CreateUpdateMsgFromPaths(ipPaths))
	require.Len(t, got, 2)
	require.Equal(t, "withdrawn", got["10.1.2.3/32 id 0"])
	require.NotEqual(t, "withdrawn", got["10.1.2.4/32 id 0"])

	reach, _ := bgp.NewPathAttributeMpReachNLRI(bgp.RF_IPv4_VPN, []bgp.PathNLRI{{NLRI: vpn}}, netip.MustParseAddr("10.255.0.1"))
	vpnPaths := []*Path{
		NewPath(bgp.RF_IPv4_VPN, nil, bgp.PathNLRI{NLRI: vpn}, true, nil, time.Now(), false),
		NewPath(bgp.RF_IPv4_VPN, nil, bgp.PathNLRI{NLRI: vpn}, false, []bgp.PathAttributeInterface{bgp.NewPathAttributeOrigin(0), reach}, time.Now(), false),
	}
	var reached, unreached int
	for _, msg := range CreateUpdateMsgFromPaths(vpnPaths) {
		for _, a := range msg.Body.(*bgp.BGPUpdate).PathAttributes {
			switch a := a.(type) {
			case *bgp.PathAttributeMpReachNLRI:
				reached += len(a.Value)
			case *bgp.PathAttributeMpUnreachNLRI:
				unreached += len(a.Value)
			}
		}
	}
	require.Equal(t, [2]int{1, 0}, [2]int{reached, unreached}, "VPN prefixes announced, withdrawn")
}
