package gobgp

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
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
	// restarting: the speaker restarts after a graceful stop (bgp.Global.Restarting);
	// the peers it adds restart as graceful-restart peers.
	restarting bool
	// stopWatch ends the state watch when the speaker stops.
	stopWatch context.CancelFunc
	// feed reports received routes of importing peers; nil without a sink.
	feed *routeFeed

	mu sync.Mutex
	// sessions holds what the watch learned about each peer, by address.
	sessions map[netip.Addr]*session

	// exportMu serialises every change of what peers are sent and guards the state
	// below, which together says what each peer is sent (see origin.go).
	exportMu sync.Mutex
	// statements are each peer's export policy statements, by address.
	statements map[netip.Addr]*peerStatements
	// prefixes holds, per prefix, how many peers export it and whether it is
	// originated (see prefixState); one map with a compact key, since it has an entry
	// per route.
	prefixes bgp.PrefixMap[prefixState]
	// resend are prefixes whose export changed for some peer and that still have to be
	// re-added for that to take effect: kept across a failed AddPath.
	resend map[netip.Prefix]struct{}
	// reflecting are the peers in reflectPeerSet (see reflect.go).
	reflecting map[netip.Addr]bool

	bmpMu sync.Mutex
	// bmp are the collectors configured in GoBGP, as SetBMP was given them.
	bmp []bgp.BMPCollector
}

var _ bgp.Router = (*router)(nil)

func newRouter(srv *server.BgpServer, key bgp.InstanceKey, logger *slog.Logger, notify func()) *router {
	if notify == nil {
		notify = func() {}
	}
	return &router{srv: srv, key: key, logger: logger, notify: notify, sessions: map[netip.Addr]*session{},
		statements: map[netip.Addr]*peerStatements{},
		resend:     map[netip.Prefix]struct{}{}, reflecting: map[netip.Addr]bool{}}
}

// AddPeer puts the peer's export policy in place and originates the prefixes of its
// export that no other peer exports yet before it adds the peer, so that the session's
// first UPDATEs already carry the whole export. A failure undoes what was done.
func (r *router) AddPeer(ctx context.Context, p bgp.Peer, export []bgp.Path) error {
	r.exportMu.Lock()
	defer r.exportMu.Unlock()
	pe := newPeerStatements()
	if err := r.addExportPolicy(ctx, p.Address); err != nil {
		return fmt.Errorf("peer %s: %w", p.Address, err)
	}
	if _, err := r.setReflecting(ctx, p.Address, p.RouteReflectorClusterID.IsValid()); err != nil {
		_ = r.dropExport(ctx, p.Address, pe)
		return fmt.Errorf("peer %s: %w", p.Address, err)
	}
	err := r.editExport(ctx, p.Address, pe, pe.plan(export, nil))
	if err == nil {
		err = r.addPaths(ctx, r.unoriginated(export))
	}
	if err == nil {
		r.mu.Lock()
		r.sessions[p.Address] = &session{limits: maps.Clone(p.MaxPrefixes)}
		r.mu.Unlock()
		if err = r.srv.AddPeer(ctx, &api.AddPeerRequest{Peer: toAPIPeer(p, r.restarting)}); err != nil {
			r.forget(p.Address)
			err = fmt.Errorf("add peer %s: %w", p.Address, err)
		} else {
			err = r.setImports(ctx, p.Address, p.Imports())
		}
	}
	if err != nil {
		_, _ = r.setReflecting(ctx, p.Address, false)
		_ = r.dropExport(ctx, p.Address, pe)
		return fmt.Errorf("peer %s: %w", p.Address, err)
	}
	r.statements[p.Address] = pe
	return nil
}

// UpdatePeer applies in-place changes. The speaker set only calls it for changes that
// need no new session; GoBGP itself would reset the session for the others. A change
// of route reflection (the peer joins or leaves the set reflected for, or its client
// flag changes) is followed by a soft reset both ways: what the peer sent is taken in
// (or not) and reflected again, and what it is sent is re-evaluated — on the running
// session, so no route it carries is withdrawn meanwhile.
func (r *router) UpdatePeer(ctx context.Context, p bgp.Peer) error {
	r.exportMu.Lock()
	setChanged, err := r.setReflecting(ctx, p.Address, p.RouteReflectorClusterID.IsValid())
	r.exportMu.Unlock()
	if err != nil {
		return fmt.Errorf("peer %s: %w", p.Address, err)
	}
	// The restart state belongs to a session's start; an update never sets it again.
	resp, err := r.srv.UpdatePeer(ctx, &api.UpdatePeerRequest{Peer: toAPIPeer(p, false)})
	if err != nil {
		return fmt.Errorf("update peer %s: %w", p.Address, err)
	}
	if setChanged || resp.GetNeedsSoftResetIn() {
		err := r.srv.ResetPeer(ctx, &api.ResetPeerRequest{Address: p.Address.String(), Soft: true, Direction: api.ResetPeerRequest_DIRECTION_BOTH})
		if err != nil {
			return fmt.Errorf("soft reset %s after a route reflection change: %w", p.Address, err)
		}
	}
	r.limitsRaised(p)
	return r.setImports(ctx, p.Address, p.Imports())
}

// DeletePeer removes the peer with a Cease (peer de-configured), then its policy, and
// withdraws the prefixes no other peer exports.
func (r *router) DeletePeer(ctx context.Context, addr netip.Addr) error {
	r.exportMu.Lock()
	defer r.exportMu.Unlock()
	if err := r.srv.DeletePeer(ctx, &api.DeletePeerRequest{Address: addr.String()}); err != nil {
		return fmt.Errorf("delete peer %s: %w", addr, err)
	}
	r.forget(addr)
	if err := r.setImports(ctx, addr, nil); err != nil {
		return err
	}
	if _, err := r.setReflecting(ctx, addr, false); err != nil {
		return err
	}
	pe := r.statements[addr]
	delete(r.statements, addr)
	if pe == nil {
		return nil
	}
	if err := r.dropExport(ctx, addr, pe); err != nil {
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
	if r.feed != nil {
		r.feed.detach()
	}
	r.stopHoldDowns()
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
	if s, ok := r.sessions[addr]; ok && s.held != nil {
		s.held.retry.Stop()
	}
	delete(r.sessions, addr)
	r.mu.Unlock()
}
