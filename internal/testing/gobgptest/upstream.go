package gobgptest

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"net/netip"
	"slices"
	"sync"
	"time"

	api "github.com/osrg/gobgp/v4/api"
	"github.com/osrg/gobgp/v4/pkg/apiutil"
	gobgppacket "github.com/osrg/gobgp/v4/pkg/packet/bgp"
	"github.com/osrg/gobgp/v4/pkg/server"

	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/bgp/gobgp/gobgpapi"
)

// Upstream is a plain BGP router that kbgp speakers peer with: the top-of-rack switch
// of `kbgp-lab` and the routers of the component tests. It accepts sessions from the
// neighbors it is given, keeps everything they send and reports it per neighbor, with
// the attributes as received, and counts how often each session went down, so a
// caller can prove that a change did not flap one.
type Upstream struct {
	srv       *server.BgpServer
	stopWatch context.CancelFunc

	mu sync.Mutex
	// established and drops follow each neighbor's session: drops counts the
	// Established → not Established transitions.
	established map[netip.Addr]bool
	drops       map[netip.Addr]int
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
	srv := server.NewBgpServer(server.LoggerOption(logger, level))
	go srv.Serve()
	err := srv.StartBgp(ctx, &api.StartBgpRequest{Global: &api.Global{
		Asn: c.ASN, RouterId: c.RouterID.String(), ListenPort: int32(c.Port), ListenAddresses: []string{c.Address.String()},
	}})
	if err != nil {
		srv.Stop()
		return nil, fmt.Errorf("start upstream router: %w", err)
	}
	u := &Upstream{srv: srv, established: map[netip.Addr]bool{}, drops: map[netip.Addr]int{}}
	watchCtx, cancel := context.WithCancel(context.Background())
	u.stopWatch = cancel
	err = srv.WatchEvent(watchCtx, server.WatchEventMessageCallbacks{
		OnPeerUpdate: func(ev *apiutil.WatchEventMessage_PeerEvent, _ time.Time) {
			if ev.Type == apiutil.PEER_EVENT_STATE {
				u.record(ev.Peer.State.NeighborAddress, ev.Peer.State.SessionState == gobgppacket.BGP_FSM_ESTABLISHED)
			}
		},
	}, server.WatchPeer())
	if err != nil {
		u.Stop()
		return nil, fmt.Errorf("upstream router: watch neighbors: %w", err)
	}
	return u, nil
}

func (u *Upstream) record(addr netip.Addr, up bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.established[addr] && !up {
		u.drops[addr]++
	}
	u.established[addr] = up
}

// Server is the GoBGP server, for tests that send what Upstream has no method for
// (a path with a crafted AS path, say).
func (u *Upstream) Server() *server.BgpServer { return u.srv }

// Stop ends every session and the router.
func (u *Upstream) Stop() {
	u.stopWatch()
	u.srv.Stop()
}

// NeighborOption changes a neighbor of an Upstream.
type NeighborOption func(*api.Peer)

// WithPassword sets the neighbor's TCP MD5 password.
func WithPassword(pw string) NeighborOption {
	return func(n *api.Peer) { n.Conf.AuthPassword = pw }
}

// WithGracefulRestart makes the router a graceful-restart helper for the neighbor, on
// both families: it keeps the neighbor's routes as stale for restart while the session
// is down.
func WithGracefulRestart(restart time.Duration) NeighborOption {
	return func(n *api.Peer) {
		n.GracefulRestart = &api.GracefulRestart{Enabled: true, RestartTime: uint32(restart.Seconds())}
		for _, a := range n.AfiSafis {
			a.MpGracefulRestart = &api.MpGracefulRestart{Config: &api.MpGracefulRestartConfig{Enabled: true}}
		}
	}
}

// WithAddPathsReceive makes the router offer ADD-PATH receive (RFC 7911) on both
// families: the neighbor may send it several paths per prefix.
func WithAddPathsReceive() NeighborOption {
	return func(n *api.Peer) {
		for _, a := range n.AfiSafis {
			a.AddPaths = &api.AddPaths{Config: &api.AddPathsConfig{Receive: true}}
		}
	}
}

// AddNeighbor accepts a session from addr (the router never dials) for both unicast
// families.
func (u *Upstream) AddNeighbor(ctx context.Context, addr netip.Addr, asn uint32, opts ...NeighborOption) error {
	n := &api.Peer{
		Conf:      &api.PeerConf{NeighborAddress: addr.String(), PeerAsn: asn},
		Transport: &api.Transport{PassiveMode: true},
		AfiSafis: []*api.AfiSafi{
			{Config: &api.AfiSafiConfig{Family: gobgpapi.Family(bgp.FamilyIPv4Unicast), Enabled: true}},
			{Config: &api.AfiSafiConfig{Family: gobgpapi.Family(bgp.FamilyIPv6Unicast), Enabled: true}},
		},
	}
	for _, o := range opts {
		o(n)
	}
	if err := u.srv.AddPeer(ctx, &api.AddPeerRequest{Peer: n}); err != nil {
		return fmt.Errorf("upstream: add neighbor %s: %w", addr, err)
	}
	return nil
}

// ResetNeighbor ends the session with addr with a Cease NOTIFICATION (administrative
// reset); the neighbor stays configured and may reconnect.
func (u *Upstream) ResetNeighbor(ctx context.Context, addr netip.Addr) error {
	if err := u.srv.ResetPeer(ctx, &api.ResetPeerRequest{Address: addr.String()}); err != nil {
		return fmt.Errorf("upstream: reset %s: %w", addr, err)
	}
	return nil
}

// Originate makes the router announce prefix to its neighbors, with itself (nexthop)
// as next hop.
func (u *Upstream) Originate(prefix netip.Prefix, nexthop netip.Addr) error {
	nlri, err := gobgppacket.NewIPAddrPrefix(prefix)
	if err != nil {
		return fmt.Errorf("upstream: originate %s: %w", prefix, err)
	}
	family := gobgppacket.RF_IPv4_UC
	attrs := []gobgppacket.PathAttributeInterface{gobgppacket.NewPathAttributeOrigin(gobgppacket.BGP_ORIGIN_ATTR_TYPE_IGP)}
	if prefix.Addr().Is4() {
		nh, err := gobgppacket.NewPathAttributeNextHop(nexthop)
		if err != nil {
			return fmt.Errorf("upstream: originate %s: %w", prefix, err)
		}
		attrs = append(attrs, nh)
	} else {
		family = gobgppacket.RF_IPv6_UC
		mp, err := gobgppacket.NewPathAttributeMpReachNLRI(family, []gobgppacket.PathNLRI{{NLRI: nlri}}, nexthop)
		if err != nil {
			return fmt.Errorf("upstream: originate %s: %w", prefix, err)
		}
		attrs = append(attrs, mp)
	}
	if _, err := u.srv.AddPath(apiutil.AddPathRequest{Paths: []*apiutil.Path{{Family: family, Nlri: nlri, Attrs: attrs}}}); err != nil {
		return fmt.Errorf("upstream: originate %s: %w", prefix, err)
	}
	return nil
}

// Sessions returns the session state of every neighbor.
func (u *Upstream) Sessions(ctx context.Context) (map[netip.Addr]bgp.SessionState, error) {
	out := map[netip.Addr]bgp.SessionState{}
	err := u.srv.ListPeer(ctx, &api.ListPeerRequest{}, func(p *api.Peer) {
		if addr, err := netip.ParseAddr(p.GetConf().GetNeighborAddress()); err == nil {
			out[addr] = gobgpapi.SessionState(p.GetState().GetSessionState())
		}
	})
	if err != nil {
		return nil, fmt.Errorf("upstream: list neighbors: %w", err)
	}
	return out, nil
}

// Drops is how often the session with addr left Established.
func (u *Upstream) Drops(addr netip.Addr) int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.drops[addr]
}

// Received returns what each neighbor sent (its Adj-RIB-In, routes kept as stale by
// graceful restart included), both families, sorted by neighbor then prefix.
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
						out = append(out, gobgpapi.Route(neighbor, prefix, p))
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
		return bgp.ComparePrefix(a.Prefix, b.Prefix)
	})
	return out, nil
}

// Arrival is what the router read from a neighbor at one moment: the session reaching
// Established, one UPDATE and how many prefixes it announced, or an End-of-RIB.
type Arrival struct {
	Neighbor    netip.Addr
	Established bool
	Prefixes    int
	EndOfRIB    bool
	At          time.Time
}

// WatchArrivals calls fn, from one goroutine, for every session that reaches
// Established, every UPDATE received and every End-of-RIB, in the order the router
// read them, with GoBGP's own timestamps: a benchmark times a session's first UPDATE
// after Established with it, and a test sees how a table was split. It stops when
// ctx ends.
func (u *Upstream) WatchArrivals(ctx context.Context, fn func(Arrival)) error {
	err := u.srv.WatchEvent(ctx, server.WatchEventMessageCallbacks{
		OnPeerUpdate: func(ev *apiutil.WatchEventMessage_PeerEvent, at time.Time) {
			if ev.Type == apiutil.PEER_EVENT_STATE && ev.Peer.State.SessionState == gobgppacket.BGP_FSM_ESTABLISHED {
				fn(Arrival{Neighbor: ev.Peer.State.NeighborAddress, Established: true, At: at})
			}
		},
		OnPathUpdate: func(paths []*apiutil.Path, at time.Time) {
			if len(paths) == 0 {
				return
			}
			n := 0
			for _, p := range paths {
				if !p.Withdrawal {
					n++
				}
			}
			fn(Arrival{Neighbor: paths[0].PeerAddress, Prefixes: n, At: at})
		},
		OnPathEor: func(p *apiutil.Path, at time.Time) {
			fn(Arrival{Neighbor: p.PeerAddress, EndOfRIB: true, At: at})
		},
	}, server.WatchPeer(), server.WatchUpdate(false, "", ""), server.WatchEor(false))
	if err != nil {
		return fmt.Errorf("upstream: watch arrivals: %w", err)
	}
	return nil
}

// UpdatesReceived is how many UPDATE messages the neighbor at addr sent, by GoBGP's
// counters of the session.
func (u *Upstream) UpdatesReceived(ctx context.Context, addr netip.Addr) (uint64, error) {
	var n uint64
	err := u.srv.ListPeer(ctx, &api.ListPeerRequest{Address: addr.String()}, func(p *api.Peer) {
		n = p.GetState().GetMessages().GetReceived().GetUpdate()
	})
	if err != nil {
		return 0, fmt.Errorf("upstream: list neighbor %s: %w", addr, err)
	}
	return n, nil
}
