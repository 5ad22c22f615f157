package table

import (
	"net/netip"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// TestDeletedAttributeTypesASet checks kbgp patch "deleted attribute types a set": a
// path and its origin info take 128 bytes (144 when a path held a slice of deleted
// types), a clone that deletes nothing holds no set, and a deletion hides the
// attribute from the clone that made it and its descendants, not from its parent,
// until a descendant sets it again.
func TestDeletedAttributeTypesASet(t *testing.T) {
	nlri, _ := bgp.NewIPAddrPrefix(netip.MustParsePrefix("10.1.2.3/32"))
	med := bgp.NewPathAttributeMultiExitDisc(10)
	attrs := []bgp.PathAttributeInterface{bgp.NewPathAttributeOrigin(0), med, bgp.NewPathAttributeLocalPref(100)}
	now := time.Now()

	const n = 1000
	paths := make([]*Path, n)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := range paths {
		paths[i] = NewPath(bgp.RF_IPv4_UC, nil, bgp.PathNLRI{NLRI: nlri}, false, attrs, now, false)
	}
	runtime.ReadMemStats(&after)
	require.LessOrEqual(t, float64(after.TotalAlloc-before.TotalAlloc)/n, 128.0, "bytes a path")

	root := paths[0]
	child := root.Clone(false)
	require.Nil(t, child.dels)
	child.delPathAttr(bgp.BGP_ATTR_TYPE_MULTI_EXIT_DISC)
	child.delPathAttr(bgp.BGP_ATTR_TYPE_LOCAL_PREF)
	grandchild := child.Clone(false)
	grandchild.setPathAttr(bgp.NewPathAttributeLocalPref(200))

	types := func(p *Path) []bgp.BGPAttrType {
		var out []bgp.BGPAttrType
		for _, a := range p.GetPathAttrs() {
			out = append(out, a.GetType())
		}
		return out
	}
	require.Equal(t, []bgp.BGPAttrType{bgp.BGP_ATTR_TYPE_ORIGIN, bgp.BGP_ATTR_TYPE_MULTI_EXIT_DISC, bgp.BGP_ATTR_TYPE_LOCAL_PREF}, types(root))
	require.Equal(t, []bgp.BGPAttrType{bgp.BGP_ATTR_TYPE_ORIGIN}, types(child))
	require.Equal(t, []bgp.BGPAttrType{bgp.BGP_ATTR_TYPE_ORIGIN, bgp.BGP_ATTR_TYPE_LOCAL_PREF}, types(grandchild))
	require.Equal(t, med, root.getPathAttr(bgp.BGP_ATTR_TYPE_MULTI_EXIT_DISC))
	require.Nil(t, child.getPathAttr(bgp.BGP_ATTR_TYPE_MULTI_EXIT_DISC))
	require.Nil(t, grandchild.getPathAttr(bgp.BGP_ATTR_TYPE_MULTI_EXIT_DISC))
	require.Equal(t, uint32(200), grandchild.getPathAttr(bgp.BGP_ATTR_TYPE_LOCAL_PREF).(*bgp.PathAttributeLocalPref).Value)
}
