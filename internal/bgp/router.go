package bgp

import (
	"context"
	"net/netip"
)

// Router is one running BGP speaker. Implementations are safe for concurrent use.
type Router interface {
	// AddPeer configures a new peer and starts its session. export is what the peer is
	// sent of the originated prefixes, each with its attributes for this peer; it is in
	// place before the session can come up, so the first UPDATEs carry the whole set.
	AddPeer(ctx context.Context, p Peer, export []Path) error
	// UpdatePeer applies a change to a peer's configuration that does not need a new
	// session (see SessionResetNeeded); the running session stays up.
	UpdatePeer(ctx context.Context, p Peer) error
	// DeletePeer removes a peer; its session ends with a Cease NOTIFICATION.
	DeletePeer(ctx context.Context, addr netip.Addr) error
	// AddPaths originates prefixes, without attributes: each peer's export adds its own.
	// Adding a prefix that is already originated re-runs every peer's export on it,
	// which is how a peer's new export of an originated prefix takes effect.
	AddPaths(ctx context.Context, prefixes []netip.Prefix) error
	// DeletePaths withdraws originated paths by prefix.
	DeletePaths(ctx context.Context, prefixes []netip.Prefix) error
	// UpdatePeerExport changes a peer's export: set adds prefixes to it or gives them
	// new attributes, remove takes prefixes out of it. Removed prefixes that are
	// originated are withdrawn from the peer at once. A prefix in set is sent with its
	// new attributes when it is next added with AddPaths, so that the caller re-sends
	// each prefix once for all peers whose export of it changed. Every prefix outside
	// the peer's export is withheld from it, including prefixes originated later.
	UpdatePeerExport(ctx context.Context, addr netip.Addr, set []Path, remove []netip.Prefix) error
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
