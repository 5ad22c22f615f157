package speakers

import (
	"net/netip"
	"reflect"
	"testing"

	"kbgp.io/kbgp/internal/bgp"
)

// TestExportBookSharesOneCopyPerAttributeSet checks the book's invariants: prefixes with
// equal attributes share one interned set, which the caller's later changes to its own
// slices never reach; a set is dropped with its last prefix; a removed prefix leaves no
// entry; equality is reflect.DeepEqual's (a nil and an empty slice are different sets).
func TestExportBookSharesOneCopyPerAttributeSet(t *testing.T) {
	lp := uint32(200)
	a := bgp.PathAttributes{Communities: []uint32{65000<<16 | 1}, LocalPreference: &lp}
	p1, p2, p3 := netip.MustParsePrefix("10.0.0.1/32"), netip.MustParsePrefix("10.0.0.2/32"), netip.MustParsePrefix("2001:db8::1/128")
	b := newExportBook()
	b.set(p1, a)
	b.set(p2, bgp.PathAttributes{Communities: []uint32{65000<<16 | 1}, LocalPreference: new(uint32(200))})
	b.set(p3, a)
	entry := func(p netip.Prefix) *sharedAttributes { s, _ := b.prefixes.Get(p); return s }
	if len(b.shared) != 1 || entry(p1) != entry(p2) || entry(p1) != entry(p3) || entry(p1).refs != 3 {
		t.Fatalf("equal attributes not shared: %d sets, %+v", len(b.shared), b.export())
	}

	a.Communities[0], lp = 7, 7
	if got, _ := b.get(p1); got.Communities[0] != 65000<<16|1 || *got.LocalPreference != 200 {
		t.Errorf("the caller's change reached the interned set: %+v", got)
	}

	b.set(p2, bgp.PathAttributes{Communities: []uint32{}})
	if len(b.shared) != 2 || entry(p1).refs != 2 || entry(p2).refs != 1 {
		t.Errorf("an empty community list shares the set of another (or of nil): %d sets", len(b.shared))
	}
	b.set(p2, bgp.PathAttributes{})
	if got, _ := b.get(p2); got.Communities != nil || len(b.shared) != 2 {
		t.Errorf("nil communities: %+v, %d sets (the replaced set should be gone)", got, len(b.shared))
	}

	b.remove(p2)
	b.remove(p2)
	if _, ok := b.get(p2); ok || b.prefixes.Len() != 2 || len(b.shared) != 1 {
		t.Errorf("after remove: %d prefixes, %d sets", b.prefixes.Len(), len(b.shared))
	}
	want := map[bgp.Family]int{bgp.FamilyIPv4Unicast: 1, bgp.FamilyIPv6Unicast: 1}
	if got := b.countByFamily(); !reflect.DeepEqual(got, want) {
		t.Errorf("count by family = %v, want %v", got, want)
	}
	b.remove(p1)
	b.remove(p3)
	if b.prefixes.Len() != 0 || len(b.shared) != 0 {
		t.Errorf("an empty book holds %d prefixes, %d sets", b.prefixes.Len(), len(b.shared))
	}
}

// TestAttributesKeyAgreesWithDeepEqual checks that two attribute sets get the same key
// exactly when reflect.DeepEqual says they are equal, field by field.
func TestAttributesKeyAgreesWithDeepEqual(t *testing.T) {
	one, two := uint32(1), uint32(2)
	sets := []bgp.PathAttributes{
		{},
		{Communities: []uint32{}},
		{Communities: []uint32{1}},
		{Communities: []uint32{1, 2}},
		{Communities: []uint32{2, 1}},
		{LargeCommunities: []bgp.LargeCommunity{}},
		{LargeCommunities: []bgp.LargeCommunity{{GlobalAdmin: 1, LocalData1: 2, LocalData2: 3}}},
		{LargeCommunities: []bgp.LargeCommunity{{GlobalAdmin: 1, LocalData1: 3, LocalData2: 2}}},
		{LocalPreference: &one},
		{LocalPreference: &two},
		{MED: &one},
		{Prepend: bgp.ASPathPrepend{ASN: 65000, Count: 1}},
		{Prepend: bgp.ASPathPrepend{ASN: 65000, Count: 2}},
		{LinkBandwidth: bgp.LinkBandwidth{ASN: 65000, BytesPerSecond: 1}},
		{LinkBandwidth: bgp.LinkBandwidth{ASN: 65001, BytesPerSecond: 1}},
		{NextHop: netip.MustParseAddr("10.0.0.1")},
		{NextHop: netip.MustParseAddr("::ffff:10.0.0.1")},
		{NextHop: netip.MustParseAddr("fe80::1%eth0")},
		{NextHop: netip.MustParseAddr("fe80::1%eth1")},
	}
	for i, a := range sets {
		for j, b := range sets {
			same := string(appendAttributesKey(nil, a)) == string(appendAttributesKey(nil, cloneAttributes(b)))
			if same != (i == j) || same != reflect.DeepEqual(a, cloneAttributes(b)) {
				t.Errorf("sets %d (%+v) and %d (%+v): same key %v, DeepEqual %v", i, a, j, b, same, reflect.DeepEqual(a, b))
			}
		}
	}
}
