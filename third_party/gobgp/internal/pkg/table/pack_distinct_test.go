package table

import (
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// TestDistinctPathsPackAsWithTheSearch checks kbgp patch "pack a table walk as it
// is": paths of which no two name the same destination and path ID pack into the
// same announcements, withdrawals and End-of-RIB with or without the search for each
// destination's last action.
func TestDistinctPathsPackAsWithTheSearch(t *testing.T) {
	var paths []*Path
	for i := range 3_000 {
		nlri, _ := bgp.NewIPAddrPrefix(netip.MustParsePrefix(fmt.Sprintf("10.%d.%d.0/24", i/256, i%256)))
		nexthop, _ := bgp.NewPathAttributeNextHop(netip.MustParseAddr("10.255.0.1"))
		attrs := []bgp.PathAttributeInterface{bgp.NewPathAttributeOrigin(0), nexthop, bgp.NewPathAttributeCommunities([]uint32{uint32(i % 7)})}
		paths = append(paths, NewPath(bgp.RF_IPv4_UC, nil, bgp.PathNLRI{NLRI: nlri, ID: uint32(i % 3)}, i%5 == 0, attrs, time.Now(), false))
	}
	paths = append(paths, NewEOR(bgp.RF_IPv4_UC))
	option := &bgp.MarshallingOption{AddPath: map[bgp.Family]bgp.BGPAddPathMode{bgp.RF_IPv4_UC: bgp.BGP_ADD_PATH_SEND}}

	searched, distinct := packedActions(t, CreateUpdateMsgFromPaths(paths, option)), packedActions(t, CreateUpdateMsgFromDistinctPaths(paths, option))
	require.Len(t, searched, len(paths))
	require.Equal(t, searched, distinct)
}

// packedActions maps each destination and path ID the UPDATEs carry to what they say
// of it: its attributes' wire form, "withdrawn", or "End-of-RIB".
func packedActions(t *testing.T, msgs []*bgp.BGPMessage) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, msg := range msgs {
		u := msg.Body.(*bgp.BGPUpdate)
		if len(u.NLRI) == 0 && len(u.WithdrawnRoutes) == 0 && len(u.PathAttributes) == 0 {
			out["End-of-RIB"] = "End-of-RIB"
			continue
		}
		var attrs []byte
		for _, a := range u.PathAttributes {
			b, err := a.Serialize()
			require.NoError(t, err)
			attrs = append(attrs, b...)
		}
		for _, n := range u.NLRI {
			out[fmt.Sprintf("%s id %d", n.NLRI, n.ID)] = string(attrs)
		}
		for _, n := range u.WithdrawnRoutes {
			out[fmt.Sprintf("%s id %d", n.NLRI, n.ID)] = "withdrawn"
		}
	}
	return out
}
