package table

import (
	"bytes"
	"testing"

	"github.com/osrg/gobgp/v4/pkg/config/oc"
	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// replaceActions are a statement's actions that set communities, large communities,
// both kinds of extended communities, MED and LOCAL_PREF to fixed values, as kbgp's
// export statements for an advertisement with those attributes do.
func replaceActions(t *testing.T) []Action {
	t.Helper()
	community, err := NewCommunityAction(oc.SetCommunity{Options: "replace", SetCommunityMethod: oc.SetCommunityMethod{CommunitiesList: []string{"65001:100", "65001:200"}}})
	if err != nil {
		t.Fatal(err)
	}
	large, err := NewLargeCommunityAction(oc.SetLargeCommunity{Options: "replace", SetLargeCommunityMethod: oc.SetLargeCommunityMethod{CommunitiesList: []string{"65001:1:2"}}})
	if err != nil {
		t.Fatal(err)
	}
	ext, err := NewExtCommunityAction(oc.SetExtCommunity{Options: "replace", SetExtCommunityMethod: oc.SetExtCommunityMethod{CommunitiesList: []string{"rt:65001:200", "rt:2001:db8::1:100"}}})
	if err != nil {
		t.Fatal(err)
	}
	med, err := NewMedAction("50")
	if err != nil {
		t.Fatal(err)
	}
	localPref, err := NewLocalPrefAction(200)
	if err != nil {
		t.Fatal(err)
	}
	return []Action{community, large, ext, med, localPref}
}

var replacedTypes = []bgp.BGPAttrType{
	bgp.BGP_ATTR_TYPE_COMMUNITIES, bgp.BGP_ATTR_TYPE_LARGE_COMMUNITY, bgp.BGP_ATTR_TYPE_EXTENDED_COMMUNITIES,
	bgp.BGP_ATTR_TYPE_IP6_EXTENDED_COMMUNITIES, bgp.BGP_ATTR_TYPE_MULTI_EXIT_DISC, bgp.BGP_ATTR_TYPE_LOCAL_PREF,
}

func applyAll(t *testing.T, actions []Action, p *Path) *Path {
	t.Helper()
	for _, a := range actions {
		var err error
		if p, err = a.Apply(p, nil); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// TestReplaceActionsShared checks kbgp patch "replace actions shared": the paths a
// replace action applies to hold one value of the attribute it sets, with the bytes
// upstream's action gave them, so that the packer takes each path into the last
// path's UPDATE without serializing it (kbgp patch "pack by shared attributes"); an
// add action after it still gives each path values of its own.
func TestReplaceActionsShared(t *testing.T) {
	actions := replaceActions(t)
	const n = 1000
	paths := sharedAttrsPaths(0, n, ownEBGPAttrs(65001<<16|1))
	exported := make([]*Path, n)
	for i, p := range paths {
		exported[i] = applyAll(t, actions, p.Clone(false))
	}

	// What upstream's actions set: a value a path, made by the path's setters.
	want := paths[0].Clone(false)
	want.SetCommunities([]uint32{65001<<16 | 100, 65001<<16 | 200}, true)
	want.SetLargeCommunities(actions[1].(*LargeCommunityAction).list, true)
	ext := actions[2].(*ExtCommunityAction)
	want.SetExtCommunities(ext.list8, true)
	want.SetIP6ExtCommunities(ext.list6, true)
	if err := want.SetMed(50, true); err != nil {
		t.Fatal(err)
	}
	want.setPathAttr(bgp.NewPathAttributeLocalPref(200))

	for _, typ := range replacedTypes {
		first, last := exported[0].getPathAttr(typ), exported[n-1].getPathAttr(typ)
		if first == nil {
			t.Errorf("attribute %s not set", typ)
			continue
		}
		if first != last {
			t.Errorf("two paths the actions applied to hold two %s values (%p, %p), want one", typ, first, last)
		}
		got, err := first.Serialize()
		if err != nil {
			t.Fatal(err)
		}
		upstream, err := want.getPathAttr(typ).Serialize()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, upstream) {
			t.Errorf("%s is % x, upstream's action sets % x", typ, got, upstream)
		}
	}

	perPath := testing.AllocsPerRun(10, func() { CreateUpdateMsgFromDistinctPaths(exported) }) / n
	if perPath > 1.5 {
		t.Errorf("packing %d paths after the replace actions: %.2f allocations a path, want at most 1.5 (their attributes serialized)", n, perPath)
	}

	add, err := NewLargeCommunityAction(oc.SetLargeCommunity{Options: "add", SetLargeCommunityMethod: oc.SetLargeCommunityMethod{CommunitiesList: []string{"65001:3:4"}}})
	if err != nil {
		t.Fatal(err)
	}
	other, err := NewLargeCommunityAction(oc.SetLargeCommunity{Options: "add", SetLargeCommunityMethod: oc.SetLargeCommunityMethod{CommunitiesList: []string{"65001:5:6"}}})
	if err != nil {
		t.Fatal(err)
	}
	shared := exported[0].GetLargeCommunities()
	a, _ := add.Apply(exported[0].Clone(false), nil)
	b, _ := other.Apply(exported[1].Clone(false), nil)
	if got := a.GetLargeCommunities(); len(got) != 2 || got[1].String() != "65001:3:4" {
		t.Errorf("add after the shared replace: %v, want [65001:1:2 65001:3:4]", got)
	}
	if got := b.GetLargeCommunities(); len(got) != 2 || got[1].String() != "65001:5:6" {
		t.Errorf("another add after the shared replace: %v, want [65001:1:2 65001:5:6]", got)
	}
	if got := exported[2].GetLargeCommunities(); len(got) != 1 || got[0] != shared[0] {
		t.Errorf("the shared large communities changed to %v", got)
	}
}
