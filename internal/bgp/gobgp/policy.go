package gobgp

import (
	"context"
	"fmt"
	"net/netip"
	"strconv"

	api "github.com/osrg/gobgp/v4/api"

	"kbgp.io/kbgp/internal/bgp"
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
	return r.installReflection(ctx)
}

// addExportPolicy creates the peer's neighbor set and its export policy, still without
// statements, and appends the policy to the global export assignment.
func (r *router) addExportPolicy(ctx context.Context, addr netip.Addr) error {
	ds := &api.DefinedSet{
		DefinedType: api.DefinedType_DEFINED_TYPE_NEIGHBOR,
		Name:        neighborSetName + addr.String(),
		List:        []string{netip.PrefixFrom(addr, addr.BitLen()).String()},
	}
	if err := r.srv.AddDefinedSet(ctx, &api.AddDefinedSetRequest{DefinedSet: ds, Replace: true}); err != nil {
		return fmt.Errorf("add defined set %s: %w", ds.Name, err)
	}
	name := exportPrefix + addr.String()
	if err := r.srv.AddPolicy(ctx, &api.AddPolicyRequest{Policy: &api.Policy{Name: name}}); err != nil {
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

// deleteExportPolicy undoes addExportPolicy and every statement editExport added.
func (r *router) deleteExportPolicy(ctx context.Context, addr netip.Addr, pe *peerStatements) error {
	name := exportPrefix + addr.String()
	err := r.srv.DeletePolicyAssignment(ctx, &api.DeletePolicyAssignmentRequest{Assignment: &api.PolicyAssignment{
		Name: globalTable, Direction: api.PolicyDirection_POLICY_DIRECTION_EXPORT, Policies: []*api.Policy{{Name: name}},
	}})
	if err != nil {
		return fmt.Errorf("unassign policy %s: %w", name, err)
	}
	// Deleting the whole policy also deletes its statements.
	if err := r.srv.DeletePolicy(ctx, &api.DeletePolicyRequest{Policy: &api.Policy{Name: name}, All: true}); err != nil {
		return fmt.Errorf("delete policy %s: %w", name, err)
	}
	sets := []*api.DefinedSet{{DefinedType: api.DefinedType_DEFINED_TYPE_NEIGHBOR, Name: neighborSetName + addr.String()}}
	for _, c := range pe.cells() {
		sets = append(sets, &api.DefinedSet{DefinedType: api.DefinedType_DEFINED_TYPE_PREFIX, Name: prefixSetName(addr, c)})
	}
	for _, ds := range sets {
		if err := r.srv.DeleteDefinedSet(ctx, &api.DeleteDefinedSetRequest{DefinedSet: ds, All: true}); err != nil {
			return fmt.Errorf("delete defined set %s: %w", ds.Name, err)
		}
	}
	return nil
}

// editExport applies a planned change of the peer's export to its policy: prefix sets
// grow (a new attribute set gets its prefix set and statement), then shrink (an emptied
// one loses its statement and prefix set). It sends nothing by itself.
func (r *router) editExport(ctx context.Context, addr netip.Addr, pe *peerStatements, e exportEdit) error {
	for _, g := range e.grow {
		ds := prefixSet(prefixSetName(addr, g.cell), g.prefixes)
		if err := r.srv.AddDefinedSet(ctx, &api.AddDefinedSetRequest{DefinedSet: ds}); err != nil {
			return fmt.Errorf("extend prefix set %s: %w", ds.Name, err)
		}
		if !g.last {
			continue
		}
		policy := &api.Policy{Name: exportPrefix + addr.String(), Statements: []*api.Statement{exportStatement(addr, g)}}
		if err := r.srv.AddPolicy(ctx, &api.AddPolicyRequest{Policy: policy}); err != nil {
			return fmt.Errorf("add statement %s: %w", statementName(addr, g.cell), err)
		}
	}
	for _, sh := range e.shrink {
		if sh.last {
			if err := r.deleteStatement(ctx, addr, sh.cell); err != nil {
				return err
			}
			continue
		}
		ds := prefixSet(prefixSetName(addr, sh.cell), sh.prefixes)
		if err := r.srv.DeleteDefinedSet(ctx, &api.DeleteDefinedSetRequest{DefinedSet: ds}); err != nil {
			return fmt.Errorf("shrink prefix set %s: %w", ds.Name, err)
		}
	}
	r.commit(pe, e)
	return nil
}

// deleteStatement takes an emptied statement out of the peer's policy and deletes it
// and its prefix set. GoBGP keeps a statement removed from a policy in its statement
// table, so it is deleted there too.
func (r *router) deleteStatement(ctx context.Context, addr netip.Addr, c cell) error {
	name := statementName(addr, c)
	policy := &api.Policy{Name: exportPrefix + addr.String(), Statements: []*api.Statement{{Name: name}}}
	if err := r.srv.DeletePolicy(ctx, &api.DeletePolicyRequest{Policy: policy}); err != nil {
		return fmt.Errorf("remove statement %s: %w", name, err)
	}
	if err := r.srv.DeleteStatement(ctx, &api.DeleteStatementRequest{Statement: &api.Statement{Name: name}, All: true}); err != nil {
		return fmt.Errorf("delete statement %s: %w", name, err)
	}
	ds := &api.DefinedSet{DefinedType: api.DefinedType_DEFINED_TYPE_PREFIX, Name: prefixSetName(addr, c)}
	if err := r.srv.DeleteDefinedSet(ctx, &api.DeleteDefinedSetRequest{DefinedSet: ds, All: true}); err != nil {
		return fmt.Errorf("delete prefix set %s: %w", ds.Name, err)
	}
	return nil
}

// exportStatement accepts the peer's prefixes of one attribute set and family and sets
// the attributes on the way out.
func exportStatement(addr netip.Addr, g cellEdit) *api.Statement {
	return &api.Statement{
		Name: statementName(addr, g.cell),
		Conditions: &api.Conditions{
			NeighborSet: &api.MatchSet{Type: api.MatchSet_TYPE_ANY, Name: neighborSetName + addr.String()},
			PrefixSet:   &api.MatchSet{Type: api.MatchSet_TYPE_ANY, Name: prefixSetName(addr, g.cell)},
		},
		Actions: exportActions(g.attrs),
	}
}

// exportActions sets ORIGIN IGP (undoing the flip of a re-added path, see addPaths),
// replaces the communities, sets the local preference and the MED, prepends to the AS
// path and replaces the extended communities with the link bandwidth. GoBGP's API cannot set a local preference of 0 (it reads 0 as "no action"); such
// a prefix goes to an iBGP peer with GoBGP's default of 100. A MED of 0 is set.
func exportActions(a bgp.PathAttributes) *api.Actions {
	out := &api.Actions{
		RouteAction:  api.RouteAction_ROUTE_ACTION_ACCEPT,
		OriginAction: &api.OriginAction{Origin: api.OriginType_ORIGIN_TYPE_IGP},
	}
	if len(a.Communities) > 0 {
		cs := make([]string, 0, len(a.Communities))
		for _, c := range a.Communities {
			cs = append(cs, strconv.FormatUint(uint64(c), 10))
		}
		out.Community = &api.CommunityAction{Type: api.CommunityAction_TYPE_REPLACE, Communities: cs}
	}
	if len(a.LargeCommunities) > 0 {
		ls := make([]string, 0, len(a.LargeCommunities))
		for _, c := range a.LargeCommunities {
			ls = append(ls, fmt.Sprintf("%d:%d:%d", c.GlobalAdmin, c.LocalData1, c.LocalData2))
		}
		out.LargeCommunity = &api.CommunityAction{Type: api.CommunityAction_TYPE_REPLACE, Communities: ls}
	}
	if a.LocalPreference != nil {
		out.LocalPref = &api.LocalPrefAction{Value: *a.LocalPreference}
	}
	if a.MED != nil {
		out.Med = &api.MedAction{Type: api.MedAction_TYPE_REPLACE, Value: int64(*a.MED)}
	}
	if a.Prepend.Count > 0 {
		// GoBGP runs export policies after it prepended the local AS for an eBGP peer, so
		// the copies go in front of it.
		out.AsPrepend = &api.AsPrependAction{Asn: a.Prepend.ASN, Repeat: uint32(a.Prepend.Count)}
	}
	if lb := a.LinkBandwidth; lb.BytesPerSecond > 0 {
		out.ExtCommunity = &api.CommunityAction{Type: api.CommunityAction_TYPE_REPLACE, Communities: []string{linkBandwidthCommunity(lb)}}
	}
	if a.NextHop.IsValid() {
		out.Nexthop = &api.NexthopAction{Address: a.NextHop.String()}
	}
	return out
}

// asTrans stands for a 4-octet AS number in a 2-octet field (RFC 6793).
const asTrans = 23456

// linkBandwidthCommunity is the link-bandwidth extended community in GoBGP's policy
// syntax, "lb:AS:bytes per second". Its AS field has 2 octets: a 4-octet ASN is sent as
// AS_TRANS, as FRR does; routers weigh by the bandwidth alone.
func linkBandwidthCommunity(lb bgp.LinkBandwidth) string {
	asn := lb.ASN
	if asn > 0xffff {
		asn = asTrans
	}
	return fmt.Sprintf("lb:%d:%d", asn, lb.BytesPerSecond)
}

// reexport re-runs the peer's export policy on everything (soft reset out): the only
// way GoBGP withdraws a prefix that is still originated from one peer alone. It
// re-sends the peer's other prefixes too, so it is used only for such withdrawals.
func (r *router) reexport(ctx context.Context, addr netip.Addr) error {
	err := r.srv.ResetPeer(ctx, &api.ResetPeerRequest{
		Address: addr.String(), Soft: true, Direction: api.ResetPeerRequest_DIRECTION_OUT,
	})
	if err != nil {
		return fmt.Errorf("re-export to %s: %w", addr, err)
	}
	return nil
}

func statementName(addr netip.Addr, c cell) string {
	return fmt.Sprintf("%s%s-%d-%s", exportPrefix, addr, c.id, familyWord(c.v6))
}

func prefixSetName(addr netip.Addr, c cell) string {
	return fmt.Sprintf("kbgp-prefixes-%s-%d-%s", addr, c.id, familyWord(c.v6))
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
