package intent

import (
	"net/netip"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/utils/ptr"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
)

// testLocalASN is the local ASN of the tests' instance.
const testLocalASN = 64512

// TestPrependAndMED checks which peers get the AS-path prepend and the MED, and what a
// prefix two advertisements select carries: set beats unset, the higher value wins.
func TestPrependAndMED(t *testing.T) {
	sel := &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"advertise": "bgp"}}
	lbls := map[string]string{"advertise": "bgp"}
	v4 := netip.MustParsePrefix("10.244.1.0/24")
	prepend := func(count int32, asn *int64) *kbgpv1.ASPathPrepend {
		return &kbgpv1.ASPathPrepend{Count: count, ASN: asn}
	}

	tests := []struct {
		name  string
		attrs []*kbgpv1.BGPAttributes
		ibgp  bool
		want  bgp.PathAttributes
	}{
		{"eBGP: prepend of the local ASN and the MED",
			[]*kbgpv1.BGPAttributes{{ASPathPrepend: prepend(2, nil), MED: ptr.To[int64](50)}}, false,
			bgp.PathAttributes{Prepend: bgp.ASPathPrepend{ASN: testLocalASN, Count: 2}, MED: ptr.To[uint32](50)}},
		{"eBGP: prepend of a given ASN",
			[]*kbgpv1.BGPAttributes{{ASPathPrepend: prepend(1, ptr.To[int64](4200000000))}}, false,
			bgp.PathAttributes{Prepend: bgp.ASPathPrepend{ASN: 4200000000, Count: 1}}},
		{"iBGP: no prepend, the MED and the local preference",
			[]*kbgpv1.BGPAttributes{{ASPathPrepend: prepend(2, nil), MED: ptr.To[int64](0), LocalPreference: ptr.To[int64](120)}}, true,
			bgp.PathAttributes{MED: ptr.To[uint32](0), LocalPreference: ptr.To[uint32](120)}},
		{"the highest MED 4294967295 fits",
			[]*kbgpv1.BGPAttributes{{MED: ptr.To[int64](4294967295)}}, false,
			bgp.PathAttributes{MED: ptr.To[uint32](4294967295)}},
		{"merge: a set value beats an unset one",
			[]*kbgpv1.BGPAttributes{{ASPathPrepend: prepend(3, nil)}, {MED: ptr.To[int64](7)}, nil}, false,
			bgp.PathAttributes{Prepend: bgp.ASPathPrepend{ASN: testLocalASN, Count: 3}, MED: ptr.To[uint32](7)}},
		{"merge: the higher MED and the longer prepend win",
			[]*kbgpv1.BGPAttributes{
				{ASPathPrepend: prepend(2, ptr.To[int64](65100)), MED: ptr.To[int64](20)},
				{ASPathPrepend: prepend(4, nil), MED: ptr.To[int64](10)},
			}, false,
			bgp.PathAttributes{Prepend: bgp.ASPathPrepend{ASN: testLocalASN, Count: 4}, MED: ptr.To[uint32](20)}},
		{"merge: of equal counts the higher ASN wins",
			[]*kbgpv1.BGPAttributes{{ASPathPrepend: prepend(2, ptr.To[int64](65100))}, {ASPathPrepend: prepend(2, nil)}}, false,
			bgp.PathAttributes{Prepend: bgp.ASPathPrepend{ASN: 65100, Count: 2}}},
		{"merge on iBGP: no prepend from any advertisement, the higher MED",
			[]*kbgpv1.BGPAttributes{{ASPathPrepend: prepend(2, nil), MED: ptr.To[int64](5)}, {MED: ptr.To[int64](6)}}, true,
			bgp.PathAttributes{MED: ptr.To[uint32](6)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var ads []kbgpv1.BGPAdvertisement
			for i, a := range tc.attrs {
				ads = append(ads, podAdvertisement(string(rune('a'+i)), lbls, a))
			}
			fams := []familyAdvertisements{{bgp.FamilyIPv4Unicast, sel}}
			want := []bgp.Path{{Prefix: v4, Attributes: tc.want}}
			// The order of the advertisements does not matter.
			reversed := slices.Clone(ads)
			slices.Reverse(reversed)
			for _, order := range [][]kbgpv1.BGPAdvertisement{ads, reversed} {
				got := advertisedPaths(Input{Advertisements: order, Node: node()}, fams, tc.ibgp)
				if diff := cmp.Diff(want, got, cmpOpts...); diff != "" {
					t.Errorf("paths (-want +got):\n%s", diff)
				}
			}
		})
	}
}
