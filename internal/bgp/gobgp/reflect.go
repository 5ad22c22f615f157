package gobgp

import (
	"context"
	"fmt"
	"net/netip"

	api "github.com/osrg/gobgp/v4/api"
)

// Route reflection (RFC 4456). kbgp's speakers import nothing, but a reflector must
// hold its clients' routes to reflect them. So the speaker keeps a neighbor set of the
// peers it reflects for (bgp.Peer.RouteReflectorClusterID set: a reflector's mesh
// peers, clients and other reflectors alike); the import policy accepts the routes
// they send, and an export policy sends received (not originated) routes to them only —
// never to a router peer, which would otherwise learn every node's pod CIDR via the
// reflector. GoBGP's own rules say which of those routes go where: a client's routes to
// everyone, a non-client's to the clients only. Reflecting for the other reflectors too
// is what lets a node change role without losing a route: whether it is a client or a
// reflector, the reflectors keep taking in its routes and sending it theirs, so only
// GoBGP's client flag of the running session changes (applied in place, patch 0007).
// A speaker that reflects for no one has nothing in the set but a placeholder no peer
// can have, since GoBGP matches an empty set as "any".
const (
	reflectPeerSet = "kbgp-reflect-peers"
	reflectPolicy  = "kbgp-reflect"
	// noPeer keeps reflectPeerSet non-empty: 0.0.0.0 is never a peer's address.
	noPeer = "0.0.0.0/32"
)

// installReflection creates the peer set and the two statements that use it.
func (r *router) installReflection(ctx context.Context) error {
	set := &api.DefinedSet{DefinedType: api.DefinedType_DEFINED_TYPE_NEIGHBOR, Name: reflectPeerSet, List: []string{noPeer}}
	if err := r.srv.AddDefinedSet(ctx, &api.AddDefinedSetRequest{DefinedSet: set, Replace: true}); err != nil {
		return fmt.Errorf("add defined set %s: %w", reflectPeerSet, err)
	}
	fromPeer := &api.Conditions{NeighborSet: &api.MatchSet{Name: reflectPeerSet, Type: api.MatchSet_TYPE_ANY}}
	err := r.srv.AddPolicy(ctx, &api.AddPolicyRequest{Policy: &api.Policy{Name: importPolicy, Statements: []*api.Statement{{
		Name: importPolicy + "-reflect", Conditions: fromPeer,
		Actions: &api.Actions{RouteAction: api.RouteAction_ROUTE_ACTION_ACCEPT},
	}}}})
	if err != nil {
		return fmt.Errorf("add reflection import statement: %w", err)
	}
	toPeer := &api.Conditions{RouteType: api.Conditions_ROUTE_TYPE_INTERNAL,
		NeighborSet: &api.MatchSet{Name: reflectPeerSet, Type: api.MatchSet_TYPE_ANY}}
	err = r.srv.AddPolicy(ctx, &api.AddPolicyRequest{Policy: &api.Policy{Name: reflectPolicy, Statements: []*api.Statement{{
		Name: reflectPolicy, Conditions: toPeer, Actions: &api.Actions{RouteAction: api.RouteAction_ROUTE_ACTION_ACCEPT},
	}}}})
	if err != nil {
		return fmt.Errorf("add policy %s: %w", reflectPolicy, err)
	}
	err = r.srv.AddPolicyAssignment(ctx, &api.AddPolicyAssignmentRequest{Assignment: &api.PolicyAssignment{
		Name: globalTable, Direction: api.PolicyDirection_POLICY_DIRECTION_EXPORT,
		Policies: []*api.Policy{{Name: reflectPolicy}}, DefaultAction: api.RouteAction_ROUTE_ACTION_REJECT,
	}})
	if err != nil {
		return fmt.Errorf("assign policy %s: %w", reflectPolicy, err)
	}
	return nil
}

// setReflecting puts the peer in the set of peers the speaker reflects for, or takes
// it out; it reports whether that changed anything. Call with exportMu held.
func (r *router) setReflecting(ctx context.Context, addr netip.Addr, reflect bool) (bool, error) {
	if r.reflecting[addr] == reflect {
		return false, nil
	}
	set := &api.DefinedSet{DefinedType: api.DefinedType_DEFINED_TYPE_NEIGHBOR, Name: reflectPeerSet,
		List: []string{netip.PrefixFrom(addr, addr.BitLen()).String()}}
	if reflect {
		if err := r.srv.AddDefinedSet(ctx, &api.AddDefinedSetRequest{DefinedSet: set}); err != nil {
			return false, fmt.Errorf("add %s to %s: %w", addr, reflectPeerSet, err)
		}
		r.reflecting[addr] = true
		return true, nil
	}
	if err := r.srv.DeleteDefinedSet(ctx, &api.DeleteDefinedSetRequest{DefinedSet: set}); err != nil {
		return false, fmt.Errorf("remove %s from %s: %w", addr, reflectPeerSet, err)
	}
	delete(r.reflecting, addr)
	return true, nil
}
