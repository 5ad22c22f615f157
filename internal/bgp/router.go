package bgp

import (
	"context"
	"net/netip"
)

// Router is one running BGP speaker, described by what each of its peers is sent: every
// peer is sent exactly its export, each prefix with the attributes meant for that peer.
// How the speaker gets there — which prefixes it originates, how it filters them per
// peer, how it makes a change reach a peer — is the implementation's business.
// Implementations are safe for concurrent use.
type Router interface {
	// AddPeer configures a new peer with its export and starts its session. The export
	// is in place before the session can come up, so the peer's first UPDATEs carry all
	// of it (before End-of-RIB).
	AddPeer(ctx context.Context, p Peer, export []Path) error
	// UpdatePeer applies a change to a peer's configuration that does not need a new
	// session (the caller decides which do); the running session stays up and the
	// peer's export is unchanged.
	UpdatePeer(ctx context.Context, p Peer) error
	// DeletePeer removes a peer; its session ends with a Cease NOTIFICATION.
	DeletePeer(ctx context.Context, addr netip.Addr) error
	// ApplyExports changes the exports of running peers, at most one change per peer,
	// as one batch: afterwards every peer is sent exactly its new export, and peers the
	// changes do not name are sent what they were. Its cost is in the size of the
	// changes, not of the exports. On error, part of the batch may have been applied.
	ApplyExports(ctx context.Context, changes []ExportChange) error
	// Peers reports the state of every configured peer.
	Peers(ctx context.Context) ([]PeerStatus, error)
	// SetBMP makes the speaker stream to exactly these collectors: a collector no longer
	// named is dropped, a changed one reconnected, the others and every BGP session
	// left as they are.
	SetBMP(ctx context.Context, collectors []BMPCollector) error
	// BMP reports the speaker's connection to each collector.
	BMP(ctx context.Context) ([]BMPStatus, error)
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
