package server

import (
	"context"
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	api "github.com/osrg/gobgp/v4/api"
	"github.com/osrg/gobgp/v4/pkg/apiutil"
	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// TestStartBgpWhileAnotherServerSelects starts BgpServers while another one of the
// process selects paths. StartBgp wrote the selection options the other server read
// (kbgp patch "race-free selection options"): under -race this fails without it.
func TestStartBgpWhileAnotherServerSelects(t *testing.T) {
	start := func(routerID string) *BgpServer {
		s := NewBgpServer()
		go s.Serve()
		require.NoError(t, s.StartBgp(context.Background(), &api.StartBgpRequest{
			Global: &api.Global{Asn: 1, RouterId: routerID, ListenPort: -1},
		}))
		return s
	}
	s := start("1.1.1.1")
	defer s.StopBgp(context.Background(), &api.StopBgpRequest{})

	started := make(chan struct{})
	go func() {
		defer close(started)
		for range 4 {
			other := start("2.2.2.2")
			assert.NoError(t, other.StopBgp(context.Background(), &api.StopBgpRequest{}))
		}
	}()
	nh, _ := bgp.NewPathAttributeNextHop(netip.MustParseAddr("10.0.0.1"))
	for i := range 64 {
		nlri, _ := bgp.NewIPAddrPrefix(netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 1, byte(i), 0}), 24))
		path, _ := apiutil.NewPath(bgp.RF_IPv4_UC, nlri, false, []bgp.PathAttributeInterface{bgp.NewPathAttributeOrigin(0), nh}, time.Now())
		_, err := s.AddPath(apiutil.AddPathRequest{Paths: []*apiutil.Path{mustApi2apiutilPath(path)}})
		require.NoError(t, err)
	}
	<-started
}
