package table

import (
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// TestShareAttrs checks kbgp patch "api paths share their attribute list": two roots
// holding the same attribute values come to hold one list; other values, or a
// derived path, keep their own.
func TestShareAttrs(t *testing.T) {
	origin := bgp.NewPathAttributeOrigin(0)
	nh, _ := bgp.NewPathAttributeNextHop(netip.MustParseAddr("10.255.0.1"))
	root := func(prefix string, attrs ...bgp.PathAttributeInterface) *Path {
		nlri, _ := bgp.NewIPAddrPrefix(netip.MustParsePrefix(prefix))
		return NewPath(bgp.RF_IPv4_UC, nil, bgp.PathNLRI{NLRI: nlri}, false, append([]bgp.PathAttributeInterface(nil), attrs...), time.Now(), false)
	}
	a, b := root("10.0.0.1/32", origin, nh), root("10.0.0.2/32", origin, nh)
	b.ShareAttrs(a)
	require.Same(t, &a.pathAttrs[0], &b.pathAttrs[0], "two roots with the same values hold two lists")

	other, _ := bgp.NewPathAttributeNextHop(netip.MustParseAddr("10.255.0.2"))
	c := root("10.0.0.3/32", origin, other)
	c.ShareAttrs(a)
	require.NotSame(t, &a.pathAttrs[0], &c.pathAttrs[0], "a root with another NEXT_HOP holds the first root's list")
	require.Equal(t, other, c.getPathAttr(bgp.BGP_ATTR_TYPE_NEXT_HOP))

	d := a.Clone(false)
	d.setPathAttr(origin)
	d.setPathAttr(nh)
	d.ShareAttrs(a)
	require.NotSame(t, &a.pathAttrs[0], &d.pathAttrs[0], "a derived path holds its root's list")
}
