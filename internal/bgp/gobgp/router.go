package gobgp

import (
	"context"
	"fmt"
	"log/slog"
	"net/netip"
	"sync"

	api "github.com/osrg/gobgp/v4/api"
	"github.com/osrg/gobgp/v4/pkg/server"

	"kbgp.io/kbgp/internal/bgp"
)

// router is one GoBGP server behind bgp.Router.
type router struct {
	srv    *server.BgpServer
	key    bgp.InstanceKey
	logger *slog.Logger
	notify func()
	// stopWatch ends the state watch when the speaker stops.
	stopWatch context.CancelFunc

	mu sync.Mutex
	// sessions holds what the watch learned about each peer, by address.
	sessions map[netip.Addr]*session
}

var _ bgp.Router = (*router)(nil)

func newRouter(srv *server.BgpServer, key bgp.InstanceKey, logger *slog.Logger, notify func()) *router {
	if notify == nil {
		notify = func() {}
	}
	return &router{srv: srv, key: key, logger: logger, notify: notify, sessions: map[netip.Addr]*session{}}
}

// AddPeer creates the peer's export policy first, so that the session's first UPDATEs
// already carry every prefix meant for it, then the peer.
func (r *router) AddPeer(ctx context.Context, p bgp.Peer, export []netip.Prefix) error {
	if err := r.addExportPolicy(ctx, p.Address, export); err != nil {
		return fmt.Errorf("peer %s: %w", p.Address, err)
	}
	r.mu.Lock()
	r.sessions[p.Address] = &session{}
	r.mu.Unlock()
	if err := r.srv.AddPeer(ctx, &api.AddPeerRequest{Peer: toAPIPeer(p)}); err != nil {
		r.forget(p.Address)
		_ = r.deleteExportPolicy(ctx, p.Address)
		return fmt.Errorf("add peer %s: %w", p.Address, err)
	}
	return nil
}

// UpdatePeer applies in-place changes. The manager only calls it for changes that need
// no new session; GoBGP itself would reset the session for the others.
func (r *router) UpdatePeer(ctx context.Context, p bgp.Peer) error {
	if _, err := r.srv.UpdatePeer(ctx, &api.UpdatePeerRequest{Peer: toAPIPeer(p)}); err != nil {
		return fmt.Errorf("update peer %s: %w", p.Address, err)
	}
	return nil
}

// DeletePeer removes the peer with a Cease (peer de-configured) and drops its policy.
func (r *router) DeletePeer(ctx context.Context, addr netip.Addr) error {
	if err := r.srv.DeletePeer(ctx, &api.DeletePeerRequest{Address: addr.String()}); err != nil {
		return fmt.Errorf("delete peer %s: %w", addr, err)
	}
	r.forget(addr)
	if err := r.deleteExportPolicy(ctx, addr); err != nil {
		return fmt.Errorf("peer %s: %w", addr, err)
	}
	return nil
}

// Stop ends the speaker. GoBGP's StopBgp with AllowGracefulRestart closes the sessions
// of peers that negotiated graceful restart without a NOTIFICATION (RFC 4724: the peer
// keeps our routes as stale) and sends a Cease to the others. Without graceful restart
// the server's own Stop sends the Cease and also ends its BFD loop; with it, that loop
// ends with the process, which is what a graceful stop is for.
func (r *router) Stop(ctx context.Context, gracefulRestart bool) error {
	defer r.stopWatch()
	if !gracefulRestart {
		r.srv.Stop()
		return nil
	}
	if err := r.srv.StopBgp(ctx, &api.StopBgpRequest{AllowGracefulRestart: true}); err != nil {
		return fmt.Errorf("stop speaker %s: %w", r.key, err)
	}
	return nil
}

func (r *router) forget(addr netip.Addr) {
	r.mu.Lock()
	delete(r.sessions, addr)
	r.mu.Unlock()
}
