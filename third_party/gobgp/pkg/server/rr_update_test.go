package server

import (
	"context"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	api "github.com/osrg/gobgp/v4/api"
	"github.com/osrg/gobgp/v4/internal/pkg/table"
)

// TestUpdatePeerRouteReflectorInPlace: making a peer a route-reflector client, and
// back, is applied to the running peer (kbgp patch "route reflector in place"): the
// configuration and the peer info used for what is sent to it change, and the caller
// is told to soft-reset. Upstream ignored the change.
func TestUpdatePeerRouteReflectorInPlace(t *testing.T) {
	s := NewBgpServer()
	go s.Serve()
	err := s.StartBgp(context.Background(), &api.StartBgpRequest{
		Global: &api.Global{Asn: 65000, RouterId: "1.1.1.1", ListenPort: -1},
	})
	require.NoError(t, err)
	defer s.StopBgp(context.Background(), &api.StopBgpRequest{})

	p := &api.Peer{Conf: &api.PeerConf{NeighborAddress: "2.2.2.2", PeerAsn: 65000}}
	require.NoError(t, s.AddPeer(context.Background(), &api.AddPeerRequest{Peer: p}))
	addr := netip.MustParseAddr("2.2.2.2")
	// As if the session were up: the info its paths are sent with.
	require.NoError(t, s.mgmtOperation(func() error {
		s.neighborMap[addr].peerInfo.Store(&table.PeerInfo{Address: addr, AS: 65000})
		return nil
	}, true))

	check := func(client bool, clusterID string) {
		t.Helper()
		var got *api.Peer
		require.NoError(t, s.ListPeer(context.Background(), &api.ListPeerRequest{Address: "2.2.2.2"}, func(peer *api.Peer) { got = peer }))
		require.NotNil(t, got)
		assert.Equal(t, client, got.GetRouteReflector().GetRouteReflectorClient())
		var info *table.PeerInfo
		require.NoError(t, s.mgmtOperation(func() error {
			info = s.neighborMap[addr].peerInfo.Load()
			return nil
		}, true))
		assert.Equal(t, client, info.RouteReflectorClient)
		if clusterID != "" {
			assert.Equal(t, clusterID, info.RouteReflectorClusterID.String())
		}
	}

	p.RouteReflector = &api.RouteReflector{RouteReflectorClient: true, RouteReflectorClusterId: "10.0.0.9"}
	resp, err := s.UpdatePeer(context.Background(), &api.UpdatePeerRequest{Peer: p})
	require.NoError(t, err)
	assert.True(t, resp.NeedsSoftResetIn)
	check(true, "10.0.0.9")

	p.RouteReflector = nil
	resp, err = s.UpdatePeer(context.Background(), &api.UpdatePeerRequest{Peer: p})
	require.NoError(t, err)
	assert.True(t, resp.NeedsSoftResetIn)
	check(false, "")
}
