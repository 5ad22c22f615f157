package bgp

import "net/netip"

// PeerRoute is a route a peer sent (or withdrew) in a family the peer imports
// (Peer.Imports). Only the prefix and next hop matter to the kernel; a link-local next
// hop carries the zone of the peer's interface.
type PeerRoute struct {
	Peer      netip.Addr
	Family    Family
	Prefix    netip.Prefix
	NextHop   netip.Addr
	Withdrawn bool
}

// RouteSink receives what importing peers send. The speaker calls it from its own
// goroutines: an implementation must not block for long and must not call back into
// the speaker.
type RouteSink interface {
	// Received reports routes sent or withdrawn, in the order received.
	Received(routes []PeerRoute)
	// EndOfRIB reports that peer sent its whole table in family (RFC 4724): what it did
	// not send again after a restart is gone.
	EndOfRIB(peer netip.Addr, family Family)
	// Importing reports that peer imports family, or imports it under another rule:
	// what it sent is judged by imp from now on, and after a restart the routes of the
	// previous run wait for its End-of-RIB too.
	Importing(peer netip.Addr, family Family, imp Import)
	// Forget drops everything peer sent in family: the peer was deleted or stopped
	// importing it.
	Forget(peer netip.Addr, family Family)
}

// RouteSinkSetter is a RouterFactory whose speakers can report received routes.
type RouteSinkSetter interface {
	WithRouteSink(RouteSink) RouterFactory
}
