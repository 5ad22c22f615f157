package gobgp

import (
	"context"
	"fmt"
	"net/netip"

	api "github.com/osrg/gobgp/v4/api"
)

// Route reflection (RFC 4456). kbgp's speakers import nothing, but a reflector must
// hold its clients' routes to reflect them. So the speaker keeps a neighbor set of its
// route-reflector clients; the import policy accepts the routes they send, and an
// export policy sends those routes (received, not originated) to the clients only —
// never to a router peer, which would otherwise learn every node's pod CIDR via the
// reflector. A speaker with no client has nothing in the set but a placeholder no
// peer can have, since GoBGP matches an empty set as "any".
const (
	reflectClientSet = "kbgp-rr-clients"
	reflectPolicy    = "kbgp-reflect"
	// noPeer keeps reflectClientSet non-empty: 0.0.0.0 is never a peer's address.
	noPeer = "0.0.0.0/32"
)

// installReflection creates the client set and the two statements that use it.
func (r *router) installReflection(ctx context.Context) error {
	set := &api.DefinedSet{DefinedType: api.DefinedType_DEFINED_TYPE_NEIGHBOR, Name: reflectClientSet, List: []string{noPeer}}
	if err := r.srv.AddDefinedSet(ctx, &api.AddDefinedSetRequest{DefinedSet: set, Replace: true}); err != nil {
		return fmt.Errorf("add defined set %s: %w", reflectClientSet, err)
	}
	fromClient := &api.Conditions{NeighborSet: &api.MatchSet{Name: reflectClientSet, Type: api.MatchSet_TYPE_ANY}}
	err := r.srv.AddPolicy(ctx, &api.AddPolicyRequest{Policy: &api.Policy{Name: importPolicy, Statements: []*api.Statement{{
		Name: importPolicy + "-reflect", Conditions: fromClient,
		Actions: &api.Actions{RouteAction: api.RouteAction_ROUTE_ACTION_ACCEPT},
	}}}})
	if err != nil {
		return fmt.Errorf("add reflection import statement: %w", err)
	}
	toClient := &api.Conditions{RouteType: api.Conditions_ROUTE_TYPE_INTERNAL,
		NeighborSet: &api.MatchSet{Name: reflectClientSet, Type: api.MatchSet_TYPE_ANY}}
	err = r.srv.AddPolicy(ctx, &api.AddPolicyRequest{Policy: &api.Policy{Name: reflectPolicy, Statements: []*api.Statement{{
		Name: reflectPolicy, Conditions: toClient, Actions: &api.Actions{RouteAction: api.RouteAction_ROUTE_ACTION_ACCEPT},
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

// setReflectClient puts the peer in the client set, or takes it out.
func (r *router) setReflectClient(ctx context.Context, addr netip.Addr, client bool) error {
	set := &api.DefinedSet{DefinedType: api.DefinedType_DEFINED_TYPE_NEIGHBOR, Name: reflectClientSet,
		List: []string{netip.PrefixFrom(addr, addr.BitLen()).String()}}
	if client {
		if err := r.srv.AddDefinedSet(ctx, &api.AddDefinedSetRequest{DefinedSet: set}); err != nil {
			return fmt.Errorf("add %s to %s: %w", addr, reflectClientSet, err)
		}
		return nil
	}
	if err := r.srv.DeleteDefinedSet(ctx, &api.DeleteDefinedSetRequest{DefinedSet: set}); err != nil {
		return fmt.Errorf("remove %s from %s: %w", addr, reflectClientSet, err)
	}
	return nil
}
