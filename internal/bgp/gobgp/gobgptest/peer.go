// Package gobgptest runs plain GoBGP speakers as the "routers" of component tests: they
// listen on a loopback address, accept everything they receive and count how often a
// session went down, so tests can check routes and prove that a change did not flap.
package gobgptest

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"sync"
	"testing"
	"time"

	api "github.com/osrg/gobgp/v4/api"
	"github.com/osrg/gobgp/v4/pkg/apiutil"
	gobgppacket "github.com/osrg/gobgp/v4/pkg/packet/bgp"
	"github.com/osrg/gobgp/v4/pkg/server"
)

// Peer is a GoBGP speaker listening on Addr:Port.
type Peer struct {
	Addr netip.Addr
	Port uint16
	srv  *server.BgpServer

	mu sync.Mutex
	// drops counts Established → not Established transitions per neighbor.
	drops       map[netip.Addr]int
	established map[netip.Addr]bool
}

// Route is a prefix the peer received, with the attributes tests check.
type Route struct {
	Prefix           netip.Prefix
	Communities      []uint32
	LargeCommunities []string
	LocalPref        uint32
	// Origin is the ORIGIN attribute: 0 IGP, 1 EGP, 2 INCOMPLETE.
	Origin uint8
}

// Start runs a speaker with ASN asn and router ID addr, listening on addr at a free
// port; it is stopped when the test ends.
func Start(t *testing.T, addr netip.Addr, asn uint32) *Peer {
	t.Helper()
	port := freePort(t, addr)
	p := &Peer{Addr: addr, Port: port, srv: server.NewBgpServer(), drops: map[netip.Addr]int{}, established: map[netip.Addr]bool{}}
	go p.srv.Serve()
	ctx := context.Background()
	err := p.srv.StartBgp(ctx, &api.StartBgpRequest{Global: &api.Global{
		Asn: asn, RouterId: addr.String(), ListenPort: int32(port), ListenAddresses: []string{addr.String()},
	}})
	if err != nil {
		t.Fatalf("start test peer %s: %v", addr, err)
	}
	t.Cleanup(p.srv.Stop)
	err = p.srv.WatchEvent(ctx, server.WatchEventMessageCallbacks{
		OnPeerUpdate: func(ev *apiutil.WatchEventMessage_PeerEvent, _ time.Time) {
			if ev.Type == apiutil.PEER_EVENT_STATE {
				p.record(ev.Peer.State.NeighborAddress, ev.Peer.State.SessionState == gobgppacket.BGP_FSM_ESTABLISHED)
			}
		},
	}, server.WatchPeer())
	if err != nil {
		t.Fatalf("watch test peer: %v", err)
	}
	return p
}

func (p *Peer) record(addr netip.Addr, up bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.established[addr] && !up {
		p.drops[addr]++
	}
	p.established[addr] = up
}

// AddNeighbor configures a passive neighbor (the speaker under test dials in), with an
// optional TCP MD5 password, hold time and graceful restart.
func (p *Peer) AddNeighbor(t *testing.T, addr netip.Addr, asn uint32, opts ...NeighborOption) {
	t.Helper()
	n := &api.Peer{
		Conf:      &api.PeerConf{NeighborAddress: addr.String(), PeerAsn: asn},
		Transport: &api.Transport{PassiveMode: true},
		AfiSafis: []*api.AfiSafi{
			{Config: &api.AfiSafiConfig{Family: &api.Family{Afi: api.Family_AFI_IP, Safi: api.Family_SAFI_UNICAST}, Enabled: true}},
			{Config: &api.AfiSafiConfig{Family: &api.Family{Afi: api.Family_AFI_IP6, Safi: api.Family_SAFI_UNICAST}, Enabled: true}},
		},
	}
	for _, o := range opts {
		o(n)
	}
	if err := p.srv.AddPeer(context.Background(), &api.AddPeerRequest{Peer: n}); err != nil {
		t.Fatalf("test peer %s: add neighbor %s: %v", p.Addr, addr, err)
	}
}

// NeighborOption changes a neighbor of the test peer.
type NeighborOption func(*api.Peer)

// WithPassword sets the neighbor's TCP MD5 password.
func WithPassword(pw string) NeighborOption {
	return func(n *api.Peer) { n.Conf.AuthPassword = pw }
}

// WithGracefulRestart enables graceful restart (helper) for both families.
func WithGracefulRestart(restart time.Duration) NeighborOption {
	return func(n *api.Peer) {
		n.GracefulRestart = &api.GracefulRestart{Enabled: true, RestartTime: uint32(restart.Seconds())}
		for _, a := range n.AfiSafis {
			a.MpGracefulRestart = &api.MpGracefulRestart{Config: &api.MpGracefulRestartConfig{Enabled: true}}
		}
	}
}

// Reset ends the session with addr with a Cease NOTIFICATION (administrative reset);
// the neighbor stays configured and reconnects.
func (p *Peer) Reset(t *testing.T, addr netip.Addr) {
	t.Helper()
	if err := p.srv.ResetPeer(context.Background(), &api.ResetPeerRequest{Address: addr.String()}); err != nil {
		t.Fatalf("reset %s: %v", addr, err)
	}
}

// State returns the session state of a neighbor as GoBGP names it.
func (p *Peer) State(t *testing.T, addr netip.Addr) api.PeerState_SessionState {
	t.Helper()
	var state api.PeerState_SessionState
	err := p.srv.ListPeer(context.Background(), &api.ListPeerRequest{Address: addr.String()}, func(n *api.Peer) {
		state = n.GetState().GetSessionState()
	})
	if err != nil {
		t.Fatalf("list peer %s: %v", addr, err)
	}
	return state
}

// Drops is how often the session with addr left Established.
func (p *Peer) Drops(addr netip.Addr) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.drops[addr]
}

// WaitEstablished waits until the session with addr is Established.
func (p *Peer) WaitEstablished(t *testing.T, addr netip.Addr, timeout time.Duration) {
	t.Helper()
	Eventually(t, timeout, fmt.Sprintf("session %s -> %s Established", p.Addr, addr), func() bool {
		return p.State(t, addr) == api.PeerState_SESSION_STATE_ESTABLISHED
	})
}

// Routes returns the routes received for the family ("ipv4" or "ipv6"), stale ones
// included, sorted by prefix.
func (p *Peer) Routes(t *testing.T, family string) []Route {
	t.Helper()
	fam := gobgppacket.RF_IPv4_UC
	if family == "ipv6" {
		fam = gobgppacket.RF_IPv6_UC
	}
	var out []Route
	err := p.srv.ListPath(apiutil.ListPathRequest{TableType: api.TableType_TABLE_TYPE_GLOBAL, Family: fam},
		func(nlri gobgppacket.NLRI, paths []*apiutil.Path) {
			pfx, err := netip.ParsePrefix(nlri.String())
			if err != nil || len(paths) == 0 {
				return
			}
			out = append(out, toRoute(pfx, paths[0]))
		})
	if err != nil {
		t.Fatalf("list paths: %v", err)
	}
	slices.SortFunc(out, func(a, b Route) int { return a.Prefix.Addr().Compare(b.Prefix.Addr()) })
	return out
}

func toRoute(pfx netip.Prefix, path *apiutil.Path) Route {
	r := Route{Prefix: pfx}
	for _, a := range path.Attrs {
		switch v := a.(type) {
		case *gobgppacket.PathAttributeCommunities:
			r.Communities = v.Value
		case *gobgppacket.PathAttributeLargeCommunities:
			for _, c := range v.Values {
				r.LargeCommunities = append(r.LargeCommunities, c.String())
			}
		case *gobgppacket.PathAttributeLocalPref:
			r.LocalPref = v.Value
		case *gobgppacket.PathAttributeOrigin:
			r.Origin = v.Value
		}
	}
	return r
}

// Eventually polls cond every 50 ms until it holds or timeout passes.
func Eventually(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func freePort(t *testing.T, addr netip.Addr) uint16 {
	t.Helper()
	l, err := net.Listen("tcp", netip.AddrPortFrom(addr, 0).String())
	if err != nil {
		t.Fatalf("find a free port on %s: %v", addr, err)
	}
	defer l.Close()
	return uint16(l.Addr().(*net.TCPAddr).Port)
}

// Originate makes the test peer announce an IPv4 prefix to its neighbors.
func (p *Peer) Originate(t *testing.T, prefix netip.Prefix) {
	t.Helper()
	nlri, err := gobgppacket.NewIPAddrPrefix(prefix)
	if err != nil {
		t.Fatal(err)
	}
	nh, err := gobgppacket.NewPathAttributeNextHop(p.Addr)
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.srv.AddPath(apiutil.AddPathRequest{Paths: []*apiutil.Path{{
		Family: gobgppacket.RF_IPv4_UC, Nlri: nlri,
		Attrs: []gobgppacket.PathAttributeInterface{gobgppacket.NewPathAttributeOrigin(0), nh},
	}}})
	if err != nil {
		t.Fatalf("originate %s: %v", prefix, err)
	}
}
