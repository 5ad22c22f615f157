package gobgp

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"net/netip"
	"slices"

	api "github.com/osrg/gobgp/v4/api"
	"github.com/osrg/gobgp/v4/pkg/apiutil"
	gobgppacket "github.com/osrg/gobgp/v4/pkg/packet/bgp"
	"github.com/osrg/gobgp/v4/pkg/server"

	"kbgp.io/kbgp/internal/bgp"
)

// Upstream is a plain BGP router that kbgp speakers peer with: the top-of-rack switch
// of `kbgp lab`. It accepts sessions from the neighbors it is given, keeps everything
// they send and reports it per neighbor, with the attributes as received.
type Upstream struct {
	srv *server.BgpServer
}

// UpstreamConfig configures an Upstream.
type UpstreamConfig struct {
	ASN      uint32
	RouterID netip.Addr
	// Address and Port are where the router listens.
	Address netip.Addr
	Port    uint16
	Logger  *slog.Logger
}

// StartUpstream starts the router. Stop it with Stop.
func StartUpstream(ctx context.Context, c UpstreamConfig) (*Upstream, error) {
	logger := c.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	level := new(slog.LevelVar)
	level.Set(slog.LevelWarn)
	srv := server.NewBgpServer(server.LoggerOption(slog.New(warnOnly{logger.Handler()}), level))
	go srv.Serve()
	err := srv.StartBgp(ctx, &api.StartBgpRequest{Global: &api.Global{
		Asn: c.ASN, RouterId: c.RouterID.String(), ListenPort: int32(c.Port), ListenAddresses: []string{c.Address.String()},
	}})
	if err != nil {
		srv.Stop()
		return nil, fmt.Errorf("start upstream router: %w", err)
	}
	return &Upstream{srv: srv}, nil
}

// Stop ends every session and the router.
func (u *Upstream) Stop() { u.srv.Stop() }

// AddNeighbor accepts a session from addr (the router never dials) for both unicast
// families.
func (u *Upstream) AddNeighbor(ctx context.Context, addr netip.Addr, asn uint32) error {
	n := &api.Peer{
		Conf:      &api.PeerConf{NeighborAddress: addr.String(), PeerAsn: asn},
		Transport: &api.Transport{PassiveMode: true},
		AfiSafis: []*api.AfiSafi{
			{Config: &api.AfiSafiConfig{Family: apiFamily(bgp.FamilyIPv4Unicast), Enabled: true}},
			{Config: &api.AfiSafiConfig{Family: apiFamily(bgp.FamilyIPv6Unicast), Enabled: true}},
		},
	}
	if err := u.srv.AddPeer(ctx, &api.AddPeerRequest{Peer: n}); err != nil {
		return fmt.Errorf("upstream: add neighbor %s: %w", addr, err)
	}
	return nil
}

// Sessions returns the session state of every neighbor.
func (u *Upstream) Sessions(ctx context.Context) (map[netip.Addr]bgp.SessionState, error) {
	out := map[netip.Addr]bgp.SessionState{}
	err := u.srv.ListPeer(ctx, &api.ListPeerRequest{}, func(p *api.Peer) {
		if addr, err := netip.ParseAddr(p.GetConf().GetNeighborAddress()); err == nil {
			out[addr] = sessionState(p.GetState().GetSessionState())
		}
	})
	if err != nil {
		return nil, fmt.Errorf("upstream: list neighbors: %w", err)
	}
	return out, nil
}

// Received returns what each neighbor sent (its Adj-RIB-In), both families, sorted by
// neighbor then prefix.
func (u *Upstream) Received(ctx context.Context) ([]bgp.ReceivedRoute, error) {
	sessions, err := u.Sessions(ctx)
	if err != nil {
		return nil, err
	}
	var out []bgp.ReceivedRoute
	for _, neighbor := range slices.SortedFunc(maps.Keys(sessions), netip.Addr.Compare) {
		for _, fam := range []gobgppacket.Family{gobgppacket.RF_IPv4_UC, gobgppacket.RF_IPv6_UC} {
			err := u.srv.ListPath(apiutil.ListPathRequest{TableType: api.TableType_TABLE_TYPE_ADJ_IN, Name: neighbor.String(), Family: fam},
				func(nlri gobgppacket.NLRI, paths []*apiutil.Path) {
					prefix, err := netip.ParsePrefix(nlri.String())
					if err != nil {
						return
					}
					for _, p := range paths {
						out = append(out, receivedRoute(neighbor, prefix, p))
					}
				})
			if err != nil {
				return nil, fmt.Errorf("upstream: list routes from %s: %w", neighbor, err)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b bgp.ReceivedRoute) int {
		if c := a.Neighbor.Compare(b.Neighbor); c != 0 {
			return c
		}
		return a.Prefix.Addr().Compare(b.Prefix.Addr())
	})
	return out, nil
}

// receivedRoute reads the attributes kbgp sets, plus next hop and AS path.
func receivedRoute(neighbor netip.Addr, prefix netip.Prefix, p *apiutil.Path) bgp.ReceivedRoute {
	r := bgp.ReceivedRoute{Neighbor: neighbor, Prefix: prefix}
	for _, a := range p.Attrs {
		switch v := a.(type) {
		case *gobgppacket.PathAttributeNextHop:
			r.NextHop = v.Value
		case *gobgppacket.PathAttributeMpReachNLRI:
			r.NextHop = v.Nexthop
		case *gobgppacket.PathAttributeAsPath:
			for _, seg := range v.Value {
				r.ASPath = append(r.ASPath, seg.GetAS()...)
			}
		case *gobgppacket.PathAttributeCommunities:
			r.Attributes.Communities = v.Value
		case *gobgppacket.PathAttributeLargeCommunities:
			for _, c := range v.Values {
				r.Attributes.LargeCommunities = append(r.Attributes.LargeCommunities,
					bgp.LargeCommunity{GlobalAdmin: c.ASN, LocalData1: c.LocalData1, LocalData2: c.LocalData2})
			}
		case *gobgppacket.PathAttributeLocalPref:
			lp := v.Value
			r.Attributes.LocalPreference = &lp
		}
	}
	return r
}
