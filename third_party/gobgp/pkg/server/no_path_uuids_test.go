package server

import (
	"context"
	"net/netip"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	api "github.com/osrg/gobgp/v4/api"
	"github.com/osrg/gobgp/v4/pkg/apiutil"
	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// TestNoPathUUIDsKeepsNone: with NoPathUUIDsOption (kbgp patch "no path UUIDs")
// AddPath answers no UUID and keeps none, and a path deleted by value goes.
func TestNoPathUUIDsKeepsNone(t *testing.T) {
	s := NewBgpServer(NoPathUUIDsOption())
	go s.Serve()
	require.NoError(t, s.StartBgp(context.Background(), &api.StartBgpRequest{
		Global: &api.Global{Asn: 65000, RouterId: "1.1.1.1", ListenPort: -1},
	}))
	defer s.Stop()

	nh, _ := bgp.NewPathAttributeNextHop(netip.MustParseAddr("10.255.0.1"))
	paths := make([]*apiutil.Path, 0, 10)
	for i := range 10 {
		nlri, _ := bgp.NewIPAddrPrefix(netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 0, 0, byte(i)}), 32))
		paths = append(paths, &apiutil.Path{Family: bgp.RF_IPv4_UC, Nlri: nlri, Attrs: []bgp.PathAttributeInterface{bgp.NewPathAttributeOrigin(0), nh}})
	}
	resps, err := s.AddPath(apiutil.AddPathRequest{Paths: paths})
	require.NoError(t, err)
	for i, r := range resps {
		require.NoError(t, r.Error)
		require.Equal(t, uuid.Nil, r.UUID, "path %d", i)
	}
	require.NoError(t, s.mgmtOperation(func() error {
		require.Empty(t, s.uuidMap)
		return nil
	}, false))

	require.NoError(t, s.DeletePath(apiutil.DeletePathRequest{Paths: paths[:1]}))
	n := 0
	require.NoError(t, s.ListPath(apiutil.ListPathRequest{TableType: api.TableType_TABLE_TYPE_GLOBAL, Family: bgp.RF_IPv4_UC}, func(bgp.NLRI, []*apiutil.Path) { n++ }))
	require.Equal(t, 9, n)
}
