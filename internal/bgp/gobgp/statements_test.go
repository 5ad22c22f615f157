package gobgp

import (
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	api "github.com/osrg/gobgp/v4/api"

	"kbgp.io/kbgp/internal/bgp"
)

// TestExportPlan walks one peer's export through a sequence of changes and checks the
// statements each change creates, grows, shrinks and deletes.
func TestExportPlan(t *testing.T) {
	var (
		v4a, v4b = netip.MustParsePrefix("10.244.1.0/24"), netip.MustParsePrefix("203.0.113.10/32")
		v6a      = netip.MustParsePrefix("2001:db8:244:1::/64")
		rackA    = bgp.PathAttributes{Communities: []uint32{65001<<16 | 101}}
		rackAB   = bgp.PathAttributes{Communities: []uint32{65001<<16 | 101, 65001<<16 | 102}}
		// rackABOrder2 lists rackAB's values in another order: the same attribute set.
		rackABOrder2 = bgp.PathAttributes{Communities: []uint32{65001<<16 | 102, 65001<<16 | 101}}
		lp200        = bgp.PathAttributes{LocalPreference: ptr(uint32(200))}
	)
	type step struct {
		name         string
		set          []bgp.Path
		remove       []netip.Prefix
		grow, shrink []cellEdit
		cells        []cell
	}
	steps := []step{{
		name: "dual-stack start: one attribute set, a statement per family",
		set:  []bgp.Path{{Prefix: v4a, Attributes: rackA}, {Prefix: v6a, Attributes: rackA}, {Prefix: v4b, Attributes: rackA}},
		grow: []cellEdit{
			{cell: cell{1, false}, attrs: rackA, prefixes: []netip.Prefix{v4a, v4b}, last: true},
			{cell: cell{1, true}, attrs: rackA, prefixes: []netip.Prefix{v6a}, last: true},
		},
		cells: []cell{{1, false}, {1, true}},
	}, {
		name:   "one IPv4 prefix moves to a new attribute set: the old statement shrinks",
		set:    []bgp.Path{{Prefix: v4b, Attributes: rackAB}},
		grow:   []cellEdit{{cell: cell{2, false}, attrs: rackAB, prefixes: []netip.Prefix{v4b}, last: true}},
		shrink: []cellEdit{{cell: cell{1, false}, attrs: rackA, prefixes: []netip.Prefix{v4b}}},
		cells:  []cell{{1, false}, {1, true}, {2, false}},
	}, {
		name:   "the other follows with communities in another order: same set, old IPv4 statement goes",
		set:    []bgp.Path{{Prefix: v4a, Attributes: rackABOrder2}},
		grow:   []cellEdit{{cell: cell{2, false}, attrs: rackAB, prefixes: []netip.Prefix{v4a}}},
		shrink: []cellEdit{{cell: cell{1, false}, attrs: rackA, prefixes: []netip.Prefix{v4a}, last: true}},
		cells:  []cell{{1, true}, {2, false}},
	}, {
		name:  "setting what is already there changes nothing",
		set:   []bgp.Path{{Prefix: v4a, Attributes: rackAB}, {Prefix: v6a, Attributes: rackA}},
		cells: []cell{{1, true}, {2, false}},
	}, {
		name:   "removing the IPv6 prefix drops attribute set 1; a new set gets a fresh id",
		set:    []bgp.Path{{Prefix: v4b, Attributes: lp200}},
		remove: []netip.Prefix{v6a, netip.MustParsePrefix("198.51.100.0/24")},
		grow:   []cellEdit{{cell: cell{3, false}, attrs: lp200, prefixes: []netip.Prefix{v4b}, last: true}},
		shrink: []cellEdit{
			{cell: cell{1, true}, attrs: rackA, prefixes: []netip.Prefix{v6a}, last: true},
			{cell: cell{2, false}, attrs: rackAB, prefixes: []netip.Prefix{v4b}},
		},
		cells: []cell{{2, false}, {3, false}},
	}, {
		name:   "rackA again is a new set: ids are never reused",
		set:    []bgp.Path{{Prefix: v6a, Attributes: rackA}},
		remove: []netip.Prefix{v4a, v4b},
		grow:   []cellEdit{{cell: cell{4, true}, attrs: rackA, prefixes: []netip.Prefix{v6a}, last: true}},
		shrink: []cellEdit{
			{cell: cell{2, false}, attrs: rackAB, prefixes: []netip.Prefix{v4a}, last: true},
			{cell: cell{3, false}, attrs: lp200, prefixes: []netip.Prefix{v4b}, last: true},
		},
		cells: []cell{{4, true}},
	}}
	pe := newPeerStatements()
	opts := cmp.Options{
		cmp.AllowUnexported(cellEdit{}, cell{}),
		cmp.Comparer(func(a, b netip.Prefix) bool { return a == b }),
		cmp.Comparer(func(a, b netip.Addr) bool { return a == b }),
		cmpopts.EquateEmpty(),
		cmpopts.SortSlices(func(a, b netip.Prefix) bool { return a.Addr().Less(b.Addr()) }),
	}
	for _, s := range steps {
		e := pe.plan(s.set, s.remove)
		if diff := cmp.Diff(s.grow, e.grow, opts); diff != "" {
			t.Errorf("%s: grow (-want +got):\n%s", s.name, diff)
		}
		if diff := cmp.Diff(s.shrink, e.shrink, opts); diff != "" {
			t.Errorf("%s: shrink (-want +got):\n%s", s.name, diff)
		}
		pe.commit(e)
		if diff := cmp.Diff(s.cells, pe.cells(), opts); diff != "" {
			t.Errorf("%s: statements after commit (-want +got):\n%s", s.name, diff)
		}
	}
	if pe.byPrefix.Len() != 1 || len(pe.ids) != 1 {
		t.Errorf("bookkeeping leaks: %d prefixes, %d attribute sets, want 1 and 1", pe.byPrefix.Len(), len(pe.ids))
	}
}

func TestExportActions(t *testing.T) {
	got := exportActions(bgp.PathAttributes{
		Communities:      []uint32{65001<<16 | 100, 0xFFFFFF01},
		LargeCommunities: []bgp.LargeCommunity{{GlobalAdmin: 65001, LocalData1: 1, LocalData2: 2}},
		LocalPreference:  ptr(uint32(200)),
	})
	if got.Community.GetType().String() != "TYPE_REPLACE" || !cmp.Equal(got.Community.GetCommunities(), []string{"4259905636", "4294967041"}) {
		t.Errorf("community action = %v", got.Community)
	}
	if !cmp.Equal(got.LargeCommunity.GetCommunities(), []string{"65001:1:2"}) || got.LocalPref.GetValue() != 200 {
		t.Errorf("large community %v, local preference %v", got.LargeCommunity, got.LocalPref)
	}
	lb := exportActions(bgp.PathAttributes{LinkBandwidth: bgp.LinkBandwidth{ASN: 65001, BytesPerSecond: 375000}})
	if lb.ExtCommunity.GetType().String() != "TYPE_REPLACE" || !cmp.Equal(lb.ExtCommunity.GetCommunities(), []string{"lb:65001:375000"}) {
		t.Errorf("link bandwidth action = %v", lb.ExtCommunity)
	}
	if plain := exportActions(bgp.PathAttributes{}); plain.Community != nil || plain.LargeCommunity != nil || plain.LocalPref != nil || plain.ExtCommunity != nil {
		t.Errorf("no attributes must set no attribute, got %v", plain)
	}
	for _, a := range []*api.Actions{got, exportActions(bgp.PathAttributes{})} {
		if a.GetOriginAction().GetOrigin() != api.OriginType_ORIGIN_TYPE_IGP || a.GetRouteAction() != api.RouteAction_ROUTE_ACTION_ACCEPT {
			t.Errorf("every export statement must accept with ORIGIN IGP, got %v", a)
		}
	}
}

func ptr[T any](v T) *T { return &v }
