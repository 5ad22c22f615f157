package server

import (
	"context"
	"net/netip"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	api "github.com/osrg/gobgp/v4/api"
	"github.com/osrg/gobgp/v4/pkg/apiutil"
	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// TestAPIPathsShareTheirAttributeList checks kbgp patch "api paths share their
// attribute list": the paths one AddPath adds with the same attribute values hold
// one list, so each costs the table less than a path added alone, which has a list
// of its own (two values here: 32 bytes).
func TestAPIPathsShareTheirAttributeList(t *testing.T) {
	const n = 20_000
	heapPerPath := func(oneRequest bool) float64 {
		s := NewBgpServer(NoPathUUIDsOption())
		go s.Serve()
		require.NoError(t, s.StartBgp(context.Background(), &api.StartBgpRequest{
			Global: &api.Global{Asn: 65000, RouterId: "1.1.1.1", ListenPort: -1},
		}))
		defer s.Stop()
		origin := bgp.NewPathAttributeOrigin(0)
		nh, _ := bgp.NewPathAttributeNextHop(netip.MustParseAddr("10.255.0.1"))
		paths := make([]*apiutil.Path, 0, n)
		for i := range n {
			nlri, _ := bgp.NewIPAddrPrefix(netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)}), 32))
			paths = append(paths, &apiutil.Path{Family: bgp.RF_IPv4_UC, Nlri: nlri, Attrs: []bgp.PathAttributeInterface{origin, nh}})
		}
		before := liveHeap()
		if oneRequest {
			_, err := s.AddPath(apiutil.AddPathRequest{Paths: paths})
			require.NoError(t, err)
		} else {
			for _, p := range paths {
				_, err := s.AddPath(apiutil.AddPathRequest{Paths: []*apiutil.Path{p}})
				require.NoError(t, err)
			}
		}
		perPath := float64(liveHeap()-before) / n
		runtime.KeepAlive(paths)
		return perPath
	}
	shared, alone := heapPerPath(true), heapPerPath(false)
	t.Logf("bytes a path: %.1f added with the others, %.1f added alone", shared, alone)
	require.Less(t, shared, alone-24, "the paths of one AddPath do not share their attribute list")
}
