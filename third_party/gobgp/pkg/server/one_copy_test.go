package server

import (
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/osrg/gobgp/v4/internal/pkg/table"
	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// TestSentCopyOwnedByThePolicyRun checks kbgp patch "one copy a sent path": the copy
// of a path prePolicyFilterpath makes for an eBGP peer is given to the export policy
// as its own (PolicyOptions.Owned), so the policy changes it instead of a clone; the
// path in the table stays as it was.
func TestSentCopyOwnedByThePolicyRun(t *testing.T) {
	rib := table.NewTableManager(logger, []bgp.Family{bgp.RF_IPv4_UC})
	from := newPeerandInfo(t, 65000, 65001, "192.168.0.1", rib)
	to := newPeerandInfo(t, 65000, 65002, "192.168.0.2", rib)
	nlri, err := bgp.NewIPAddrPrefix(netip.MustParsePrefix("10.10.10.0/24"))
	require.NoError(t, err)
	nh, err := bgp.NewPathAttributeNextHop(netip.MustParseAddr("192.168.0.1"))
	require.NoError(t, err)
	path := table.NewPath(bgp.RF_IPv4_UC, from.peerInfo.Load(), bgp.PathNLRI{NLRI: nlri}, false, []bgp.PathAttributeInterface{
		bgp.NewPathAttributeOrigin(0), nh,
		bgp.NewPathAttributeAsPath([]bgp.AsPathParamInterface{bgp.NewAs4PathParam(bgp.BGP_ASPATH_ATTR_TYPE_SEQ, []uint32{65001})}),
	}, time.Now(), false)

	s := &BgpServer{logger: logger}
	options := &table.PolicyOptions{}
	sent, stop := s.prePolicyFilterpath(to, path, nil, options)
	require.False(t, stop)
	require.NotSame(t, path, sent, "the path in the table is sent as it is")
	require.Same(t, sent, options.Owned, "the export policy does not own the copy made for it")
	require.Equal(t, "192.168.0.1", path.GetNexthop().String(), "the path in the table changed")
}
