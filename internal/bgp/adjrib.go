package bgp

import (
	"context"
	"net/netip"
)

// AdjRIB names one side of a peer's routes as the speaker holds them.
type AdjRIB string

// The two sides: what the speaker sends the peer, with the attributes as sent (the
// Adj-RIB-Out, after export policy), and what the peer sent, before import policy
// (the Adj-RIB-In).
const (
	AdjRIBOut AdjRIB = "advertised"
	AdjRIBIn  AdjRIB = "received"
)

// AdjRIBReader lists a peer's Adj-RIB, for the operator who asks why a peer does not
// have a route (docs/status.md); every Router is one.
type AdjRIBReader interface {
	// AdjRIB lists the routes of one side for the peer, both unicast families,
	// sorted by prefix; Neighbor is the peer. A peer the speaker does not have is
	// an error.
	AdjRIB(ctx context.Context, peer netip.Addr, side AdjRIB) ([]ReceivedRoute, error)
}
