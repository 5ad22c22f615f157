package server

import (
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/osrg/gobgp/v4/internal/pkg/table"
	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// TestPolicyOptionsATableWalk checks kbgp patch "policy options a table walk": a
// walk sending many paths fills one PolicyOptions for each in turn, reset each time
// (a copy owned for the last path is not owned for the next, the route server
// client's, which is sent as the table holds it), with the server's ROA validation;
// and a path sent so allocates only its copy.
func TestPolicyOptionsATableWalk(t *testing.T) {
	s := NewBgpServer()
	rib := table.NewTableManager(logger, []bgp.Family{bgp.RF_IPv4_UC})
	to := newPeerandInfo(t, 65000, 65002, "192.168.0.2", rib)
	client := newPeerandInfo(t, 65000, 65003, "192.168.0.3", rib)
	info := *client.peerInfo.Load()
	info.RouteServerClient = true
	client.peerInfo.Store(&info)

	nlri, err := bgp.NewIPAddrPrefix(netip.MustParsePrefix("10.10.10.0/24"))
	require.NoError(t, err)
	nh, err := bgp.NewPathAttributeNextHop(netip.IPv4Unspecified())
	require.NoError(t, err)
	// The server's own path, as kbgp adds them: ORIGIN and no next hop.
	path := table.NewPath(bgp.RF_IPv4_UC, nil, bgp.PathNLRI{NLRI: nlri}, false, []bgp.PathAttributeInterface{bgp.NewPathAttributeOrigin(0), nh}, time.Now(), false)

	options := &table.PolicyOptions{}
	sent, stop := s.prePolicyFilterpath(to, path, nil, options)
	require.False(t, stop)
	require.Same(t, sent, options.Owned)
	require.NotNil(t, options.Validate, "the options have no ROA validation")
	require.Same(t, to.peerInfo.Load(), options.Info)

	sent, stop = s.prePolicyFilterpath(client, path, nil, options)
	require.False(t, stop)
	require.Same(t, path, sent, "a route server client's path is not the table's")
	require.Nil(t, options.Owned, "the table's path is owned by the policy: the last path's copy was left in the options")
	require.Same(t, client.peerInfo.Load(), options.Info)

	// An own path to an eBGP peer: the copy and its attribute list, nothing for the
	// options (kbgp patch "a sent path's attributes in one list" made the list one
	// allocation).
	allocs := testing.AllocsPerRun(100, func() { s.filterpathWith(to, path, nil, options) })
	require.LessOrEqual(t, allocs, 2.0, "allocations a path sent with the walk's options")
}
