package gobgp

import (
	"context"
	"fmt"
	"net/netip"

	api "github.com/osrg/gobgp/v4/api"
)

// Policy names. GoBGP assigns import and export policies globally (per-peer assignment
// exists only for route-server clients), so per-peer export is a global policy per peer
// whose statements match that peer's neighbor set.
const (
	globalTable     = "global"
	importPolicy    = "kbgp-import"
	exportPrefix    = "kbgp-export-"
	neighborSetName = "kbgp-peer-"
)

// installPolicies makes kbgp originate without learning: the import policy, which GoBGP
// also runs on locally originated paths, accepts only those and rejects every received
// route; and reject is the default export action, so a peer gets only what its own
// export policy accepts.
func (r *router) installPolicies(ctx context.Context) error {
	err := r.srv.AddPolicy(ctx, &api.AddPolicyRequest{Policy: &api.Policy{
		Name: importPolicy,
		Statements: []*api.Statement{{
			Name:       importPolicy + "-local",
			Conditions: &api.Conditions{RouteType: api.Conditions_ROUTE_TYPE_LOCAL},
			Actions:    &api.Actions{RouteAction: api.RouteAction_ROUTE_ACTION_ACCEPT},
		}},
	}})
	if err != nil {
		return fmt.Errorf("add import policy: %w", err)
	}
	err = r.srv.SetPolicyAssignment(ctx, &api.SetPolicyAssignmentRequest{Assignment: &api.PolicyAssignment{
		Name: globalTable, Direction: api.PolicyDirection_POLICY_DIRECTION_IMPORT,
		Policies: []*api.Policy{{Name: importPolicy}}, DefaultAction: api.RouteAction_ROUTE_ACTION_REJECT,
	}})
	if err != nil {
		return fmt.Errorf("assign import policy: %w", err)
	}
	err = r.srv.SetPolicyAssignment(ctx, &api.SetPolicyAssignmentRequest{Assignment: &api.PolicyAssignment{
		Name: globalTable, Direction: api.PolicyDirection_POLICY_DIRECTION_EXPORT, DefaultAction: api.RouteAction_ROUTE_ACTION_REJECT,
	}})
	if err != nil {
		return fmt.Errorf("set default export policy: %w", err)
	}
	return nil
}

// addExportPolicy creates the neighbor set, the two per-family prefix sets (GoBGP
// refuses mixed families in one set) and the policy accepting them for one peer, and
// appends the policy to the global export assignment.
func (r *router) addExportPolicy(ctx context.Context, addr netip.Addr, export []netip.Prefix) error {
	name := exportPrefix + addr.String()
	sets := []*api.DefinedSet{{
		DefinedType: api.DefinedType_DEFINED_TYPE_NEIGHBOR,
		Name:        neighborSetName + addr.String(),
		List:        []string{netip.PrefixFrom(addr, addr.BitLen()).String()},
	}}
	v4, v6 := splitFamilies(export)
	sets = append(sets, prefixSet(prefixSetName(addr, false), v4), prefixSet(prefixSetName(addr, true), v6))
	for _, ds := range sets {
		if err := r.srv.AddDefinedSet(ctx, &api.AddDefinedSetRequest{DefinedSet: ds, Replace: true}); err != nil {
			return fmt.Errorf("add defined set %s: %w", ds.Name, err)
		}
	}
	policy := &api.Policy{Name: name}
	for _, v6 := range []bool{false, true} {
		policy.Statements = append(policy.Statements, &api.Statement{
			Name: fmt.Sprintf("%s-%s", name, familyWord(v6)),
			Conditions: &api.Conditions{
				NeighborSet: &api.MatchSet{Type: api.MatchSet_TYPE_ANY, Name: neighborSetName + addr.String()},
				PrefixSet:   &api.MatchSet{Type: api.MatchSet_TYPE_ANY, Name: prefixSetName(addr, v6)},
			},
			Actions: &api.Actions{RouteAction: api.RouteAction_ROUTE_ACTION_ACCEPT},
		})
	}
	if err := r.srv.AddPolicy(ctx, &api.AddPolicyRequest{Policy: policy}); err != nil {
		return fmt.Errorf("add policy %s: %w", name, err)
	}
	err := r.srv.AddPolicyAssignment(ctx, &api.AddPolicyAssignmentRequest{Assignment: &api.PolicyAssignment{
		Name: globalTable, Direction: api.PolicyDirection_POLICY_DIRECTION_EXPORT,
		Policies: []*api.Policy{{Name: name}}, DefaultAction: api.RouteAction_ROUTE_ACTION_REJECT,
	}})
	if err != nil {
		return fmt.Errorf("assign policy %s: %w", name, err)
	}
	return nil
}

// deleteExportPolicy undoes addExportPolicy.
func (r *router) deleteExportPolicy(ctx context.Context, addr netip.Addr) error {
	name := exportPrefix + addr.String()
	err := r.srv.DeletePolicyAssignment(ctx, &api.DeletePolicyAssignmentRequest{Assignment: &api.PolicyAssignment{
		Name: globalTable, Direction: api.PolicyDirection_POLICY_DIRECTION_EXPORT, Policies: []*api.Policy{{Name: name}},
	}})
	if err != nil {
		return fmt.Errorf("unassign policy %s: %w", name, err)
	}
	if err := r.srv.DeletePolicy(ctx, &api.DeletePolicyRequest{Policy: &api.Policy{Name: name}, All: true}); err != nil {
		return fmt.Errorf("delete policy %s: %w", name, err)
	}
	for _, ds := range []*api.DefinedSet{
		{DefinedType: api.DefinedType_DEFINED_TYPE_PREFIX, Name: prefixSetName(addr, false)},
		{DefinedType: api.DefinedType_DEFINED_TYPE_PREFIX, Name: prefixSetName(addr, true)},
		{DefinedType: api.DefinedType_DEFINED_TYPE_NEIGHBOR, Name: neighborSetName + addr.String()},
	} {
		if err := r.srv.DeleteDefinedSet(ctx, &api.DeleteDefinedSetRequest{DefinedSet: ds, All: true}); err != nil {
			return fmt.Errorf("delete defined set %s: %w", ds.Name, err)
		}
	}
	return nil
}

// UpdatePeerExport edits the peer's prefix sets in place and then re-runs the export
// policy for that peer only (soft reset out), which sends the new prefixes and
// withdraws the removed ones without touching the session.
func (r *router) UpdatePeerExport(ctx context.Context, addr netip.Addr, add, remove []netip.Prefix) error {
	if len(add) == 0 && len(remove) == 0 {
		return nil
	}
	for _, v6 := range []bool{false, true} {
		addFam, removeFam := pick(add, v6), pick(remove, v6)
		if len(addFam) > 0 {
			ds := prefixSet(prefixSetName(addr, v6), addFam)
			if err := r.srv.AddDefinedSet(ctx, &api.AddDefinedSetRequest{DefinedSet: ds}); err != nil {
				return fmt.Errorf("extend prefix set %s: %w", ds.Name, err)
			}
		}
		if len(removeFam) > 0 {
			ds := prefixSet(prefixSetName(addr, v6), removeFam)
			if err := r.srv.DeleteDefinedSet(ctx, &api.DeleteDefinedSetRequest{DefinedSet: ds}); err != nil {
				return fmt.Errorf("shrink prefix set %s: %w", ds.Name, err)
			}
		}
	}
	err := r.srv.ResetPeer(ctx, &api.ResetPeerRequest{
		Address: addr.String(), Soft: true, Direction: api.ResetPeerRequest_DIRECTION_OUT,
	})
	if err != nil {
		return fmt.Errorf("re-export to %s: %w", addr, err)
	}
	return nil
}

func prefixSetName(addr netip.Addr, v6 bool) string {
	return fmt.Sprintf("kbgp-prefixes-%s-%s", addr, familyWord(v6))
}

func familyWord(v6 bool) string {
	if v6 {
		return "v6"
	}
	return "v4"
}

// prefixSet matches each prefix exactly (no longer or shorter prefixes).
func prefixSet(name string, prefixes []netip.Prefix) *api.DefinedSet {
	ds := &api.DefinedSet{DefinedType: api.DefinedType_DEFINED_TYPE_PREFIX, Name: name}
	for _, p := range prefixes {
		bits := uint32(p.Bits())
		ds.Prefixes = append(ds.Prefixes, &api.Prefix{IpPrefix: p.Masked().String(), MaskLengthMin: bits, MaskLengthMax: bits})
	}
	return ds
}

func splitFamilies(prefixes []netip.Prefix) (v4, v6 []netip.Prefix) {
	return pick(prefixes, false), pick(prefixes, true)
}

func pick(prefixes []netip.Prefix, v6 bool) []netip.Prefix {
	var out []netip.Prefix
	for _, p := range prefixes {
		if p.Addr().Is6() == v6 {
			out = append(out, p)
		}
	}
	return out
}
