package bgp

import (
	"context"
	"net/netip"
)

// Router is one running BGP speaker. Implementations are safe for concurrent use.
type Router interface {
	// AddPeer configures a new peer and starts its session. export is the set of
	// originated prefixes the peer is sent; it is in place before the session can come
	// up, so the first UPDATEs carry the whole set.
	AddPeer(ctx context.Context, p Peer, export []netip.Prefix) error
	// UpdatePeer applies a change to a peer's configuration that does not need a new
	// session (see SessionResetNeeded); the running session stays up.
	UpdatePeer(ctx context.Context, p Peer) error
	// DeletePeer removes a peer; its session ends with a Cease NOTIFICATION.
	DeletePeer(ctx context.Context, addr netip.Addr) error
	// AddPaths originates paths, replacing any earlier path for the same prefix.
	AddPaths(ctx context.Context, paths []Path) error
	// DeletePaths withdraws originated paths by prefix.
	DeletePaths(ctx context.Context, prefixes []netip.Prefix) error
	// UpdatePeerExport changes which originated prefixes a peer is sent: add are sent
	// (when originated), remove are withdrawn from it. Every prefix outside the peer's
	// set is withheld from it, including paths added later.
	UpdatePeerExport(ctx context.Context, addr netip.Addr, add, remove []netip.Prefix) error
	// Peers reports the state of every configured peer.
	Peers(ctx context.Context) ([]PeerStatus, error)
	// Stop ends every session and releases the speaker. With gracefulRestart, peers that
	// negotiated graceful restart get no NOTIFICATION, so they keep our routes as stale
	// while we restart; the others get a Cease.
	Stop(ctx context.Context, gracefulRestart bool) error
}

// RouterFactory starts speakers. notify is called, without blocking, whenever a peer's
// state changes, so that status can be refreshed; it must not block either.
type RouterFactory interface {
	NewRouter(ctx context.Context, key InstanceKey, g Global, notify func()) (Router, error)
}
