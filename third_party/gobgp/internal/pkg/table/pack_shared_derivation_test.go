package table

import (
	"fmt"
	"slices"
	"testing"

	"github.com/osrg/gobgp/v4/pkg/config/oc"
	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// exportPolicy is a community and an origin action, as one statement of an export
// policy holds them: each sets one value, made with the action, on every path.
type exportPolicy struct{ community, origin Action }

func newExportPolicy(t *testing.T, community string) exportPolicy {
	t.Helper()
	replace, err := NewCommunityAction(oc.SetCommunity{Options: "replace", SetCommunityMethod: oc.SetCommunityMethod{CommunitiesList: []string{community}}})
	if err != nil {
		t.Fatal(err)
	}
	origin, err := NewOriginAction(oc.BGP_ORIGIN_ATTR_TYPE_IGP)
	if err != nil {
		t.Fatal(err)
	}
	return exportPolicy{replace, origin}
}

// paths are n IPv4 paths from firstHost on as the policy sends them: each a root with
// a list of its own holding the values of attrs (as paths added through the API
// are), cloned, with the actions applied.
func (e exportPolicy) paths(attrs []bgp.PathAttributeInterface, firstHost, n int) []*Path {
	out := make([]*Path, 0, n)
	for _, root := range sharedAttrsPaths(firstHost, n, attrs) {
		root.pathAttrs = slices.Clone(attrs)
		p, _ := e.community.Apply(root.Clone(false), nil)
		p, _ = e.origin.Apply(p, nil)
		out = append(out, p)
	}
	return out
}

// TestPackingASharedDerivationWithoutAList checks kbgp patch "pack a shared
// derivation without a list": a path derived as the path before it joins that
// path's UPDATE without the attribute list GetPathAttrs makes, and a path derived
// otherwise (another value, a deleted attribute) is still packed by its attributes.
func TestPackingASharedDerivationWithoutAList(t *testing.T) {
	const n = 1000
	policy100, policy200 := newExportPolicy(t, "65001:100"), newExportPolicy(t, "65001:200")
	attrs := ownEBGPAttrs(65001<<16 | 1)
	paths := policy100.paths(attrs, 0, n)
	perPath := testing.AllocsPerRun(10, func() { CreateUpdateMsgFromDistinctPaths(paths) }) / n
	t.Logf("%.2f allocations a path", perPath)
	if perPath > 0.2 {
		t.Errorf("packing %d paths derived alike: %.2f allocations a path, want at most 0.2 (no attribute list a path)", n, perPath)
	}

	var mixed []*Path
	mixed = append(mixed, policy100.paths(attrs, 0, 3)...)
	mixed = append(mixed, policy200.paths(attrs, 3, 2)...)
	noCommunity := policy100.paths(attrs, 5, 2)
	for _, p := range noCommunity {
		p.delPathAttr(bgp.BGP_ATTR_TYPE_COMMUNITIES)
	}
	mixed = append(mixed, noCommunity...)
	mixed = append(mixed, policy100.paths(attrs, 7, 2)...)
	byCommunity := map[string][]string{}
	for _, m := range CreateUpdateMsgFromPaths(mixed) {
		u := m.Body.(*bgp.BGPUpdate)
		community := "none"
		for _, a := range u.PathAttributes {
			if c, ok := a.(*bgp.PathAttributeCommunities); ok {
				community = fmt.Sprintf("%d:%d", c.Value[0]>>16, c.Value[0]&0xffff)
			}
		}
		if _, dup := byCommunity[community]; dup {
			t.Errorf("two UPDATEs carry communities %s", community)
		}
		for _, nlri := range u.NLRI {
			byCommunity[community] = append(byCommunity[community], nlri.NLRI.String())
		}
	}
	want := map[string][]string{
		"65001:100": {"10.0.0.0/32", "10.0.0.1/32", "10.0.0.2/32", "10.0.0.7/32", "10.0.0.8/32"},
		"65001:200": {"10.0.0.3/32", "10.0.0.4/32"},
		"none":      {"10.0.0.5/32", "10.0.0.6/32"},
	}
	if len(byCommunity) != len(want) {
		t.Fatalf("UPDATEs by communities %v, want %v", byCommunity, want)
	}
	for c, nlris := range want {
		if !slices.Equal(byCommunity[c], nlris) {
			t.Errorf("communities %s: NLRIs %v, want %v", c, byCommunity[c], nlris)
		}
	}
}
