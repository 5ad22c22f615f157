package table

import (
	"testing"

	"github.com/osrg/gobgp/v4/pkg/config/oc"
	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// TestOriginActionShared checks kbgp patch "origin action shared": the paths an
// origin action applies to hold one ORIGIN value, so that, as a speaker's own paths
// to one eBGP peer do, they share every attribute value and the packer takes each
// into the last path's UPDATE without serializing it (kbgp patch "pack by shared
// attributes").
func TestOriginActionShared(t *testing.T) {
	action, err := NewOriginAction(oc.BGP_ORIGIN_ATTR_TYPE_IGP)
	if err != nil {
		t.Fatal(err)
	}
	const n = 1000
	paths := sharedAttrsPaths(0, n, ownEBGPAttrs(65001<<16|100))
	exported := make([]*Path, n)
	for i, p := range paths {
		if exported[i], err = action.Apply(p.Clone(false), nil); err != nil {
			t.Fatal(err)
		}
	}
	first, last := exported[0].getPathAttr(bgp.BGP_ATTR_TYPE_ORIGIN), exported[n-1].getPathAttr(bgp.BGP_ATTR_TYPE_ORIGIN)
	if first != last {
		t.Errorf("two paths the action applied to hold two ORIGIN values (%p, %p), want one", first, last)
	}
	if o := first.(*bgp.PathAttributeOrigin); o.Value != bgp.BGP_ORIGIN_ATTR_TYPE_IGP {
		t.Errorf("ORIGIN %d, want IGP", o.Value)
	}
	perPath := testing.AllocsPerRun(10, func() { CreateUpdateMsgFromDistinctPaths(exported) }) / n
	if perPath > 1.5 {
		t.Errorf("packing %d paths after the origin action: %.2f allocations a path, want at most 1.5 (their attributes serialized)", n, perPath)
	}
}
