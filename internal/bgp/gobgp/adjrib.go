package gobgp

import (
	"context"
	"fmt"
	"net/netip"
	"slices"

	api "github.com/osrg/gobgp/v4/api"
	"github.com/osrg/gobgp/v4/pkg/apiutil"
	gobgppacket "github.com/osrg/gobgp/v4/pkg/packet/bgp"

	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/bgp/gobgp/gobgpapi"
)

// adjRIBTables are GoBGP's tables for each side.
var adjRIBTables = map[bgp.AdjRIB]api.TableType{
	bgp.AdjRIBOut: api.TableType_TABLE_TYPE_ADJ_OUT,
	bgp.AdjRIBIn:  api.TableType_TABLE_TYPE_ADJ_IN,
}

// AdjRIB implements bgp.Router with GoBGP's ListPath. GoBGP computes the Adj-RIB-Out
// for the call by running the Loc-RIB through the peer's export policy, so its
// attributes are the ones the peer is sent; the Adj-RIB-In is what the peer sent,
// before import policy, looped paths included.
func (r *router) AdjRIB(ctx context.Context, peer netip.Addr, side bgp.AdjRIB) ([]bgp.ReceivedRoute, error) {
	table, ok := adjRIBTables[side]
	if !ok {
		return nil, fmt.Errorf("unknown Adj-RIB %q", side)
	}
	var out []bgp.ReceivedRoute
	for _, fam := range []gobgppacket.Family{gobgppacket.RF_IPv4_UC, gobgppacket.RF_IPv6_UC} {
		err := r.srv.ListPath(apiutil.ListPathRequest{TableType: table, Name: peer.String(), Family: fam},
			func(nlri gobgppacket.NLRI, paths []*apiutil.Path) {
				prefix, err := netip.ParsePrefix(nlri.String())
				if err != nil {
					return
				}
				for _, p := range paths {
					out = append(out, gobgpapi.Route(peer, prefix, p))
				}
			})
		if err != nil {
			return nil, fmt.Errorf("list %s routes of %s: %w", side, peer, err)
		}
	}
	slices.SortStableFunc(out, func(a, b bgp.ReceivedRoute) int { return bgp.ComparePrefix(a.Prefix, b.Prefix) })
	return out, nil
}
