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

	// exportMu serialises edits of export policies and guards what they depend on.
	exportMu sync.Mutex
	// exports is each peer's export policy bookkeeping, by address.
	exports map[netip.Addr]*peerExport
	// originated are the originated prefixes, with whether the path's ORIGIN is flipped
	// (see AddPaths). A prefix leaving a peer's export needs a withdrawal to that peer
	// only if it is still originated.
	originated map[netip.Prefix]bool
}

var _ bgp.Router = (*router)(nil)

func newRouter(srv *server.BgpServer, key bgp.InstanceKey, logger *slog.Logger, notify func()) *router {
	if notify == nil {
		notify = func() {}
	}
	return &router{srv: srv, key: key, logger: logger, notify: notify, sessions: map[netip.Addr]*session{},
		exports: map[netip.Addr]*peerExport{}, originated: map[netip.Prefix]bool{}}
}

// AddPeer creates the peer's export policy first, so that the session's first UPDATEs
// already carry every originated prefix meant for it, then the peer.
func (r *router) AddPeer(ctx context.Context, p bgp.Peer, export []bgp.Path) error {
	r.exportMu.Lock()
	defer r.exportMu.Unlock()
	pe := newPeerExport()
	if err := r.addExportPolicy(ctx, p.Address); err != nil {
		return fmt.Errorf("peer %s: %w", p.Address, err)
	}
	if err := r.editExport(ctx, p.Address, pe, export, nil); err != nil {
		_ = r.deleteExportPolicy(ctx, p.Address, pe)
		return fmt.Errorf("peer %s: %w", p.Address, err)
	}
	r.mu.Lock()
	r.sessions[p.Address] = &session{}
	r.mu.Unlock()
	if err := r.srv.AddPeer(ctx, &api.AddPeerRequest{Peer: toAPIPeer(p)}); err != nil {
		r.forget(p.Address)
		_ = r.deleteExportPolicy(ctx, p.Address, pe)
		return fmt.Errorf("add peer %s: %w", p.Address, err)
	}
	r.exports[p.Address] = pe
	return nil
}

// UpdatePeerExport edits the peer's export policy. Prefixes set into it take effect
// when the manager re-adds them (one AddPath for all peers whose export of them
// changed, instead of re-sending each peer everything). Removed prefixes that are still
// originated are withdrawn with a soft reset out of this peer alone; those no longer
// originated were withdrawn when their paths were deleted.
func (r *router) UpdatePeerExport(ctx context.Context, addr netip.Addr, set []bgp.Path, remove []netip.Prefix) error {
	r.exportMu.Lock()
	defer r.exportMu.Unlock()
	pe, ok := r.exports[addr]
	if !ok {
		return fmt.Errorf("peer %s not found", addr)
	}
	if err := r.editExport(ctx, addr, pe, set, remove); err != nil {
		return fmt.Errorf("peer %s: %w", addr, err)
	}
	for _, p := range remove {
		if _, ok := r.originated[p]; ok {
			return r.reexport(ctx, addr)
		}
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
	r.exportMu.Lock()
	defer r.exportMu.Unlock()
	if err := r.srv.DeletePeer(ctx, &api.DeletePeerRequest{Address: addr.String()}); err != nil {
		return fmt.Errorf("delete peer %s: %w", addr, err)
	}
	r.forget(addr)
	pe := r.exports[addr]
	delete(r.exports, addr)
	if pe == nil {
		return nil
	}
	if err := r.deleteExportPolicy(ctx, addr, pe); err != nil {
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
