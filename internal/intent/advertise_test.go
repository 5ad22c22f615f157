package intent

import (
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
)

func podAdvertisement(name string, lbls map[string]string, attrs *kbgpv1.BGPAttributes) kbgpv1.BGPAdvertisement {
	return kbgpv1.BGPAdvertisement{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: lbls},
		Spec: kbgpv1.BGPAdvertisementSpec{Advertisements: []kbgpv1.Advertisement{{
			AdvertisementType: kbgpv1.AdvertisementPodCIDR, Attributes: attrs,
		}}},
	}
}

func TestPodCIDRPaths(t *testing.T) {
	ads := []kbgpv1.BGPAdvertisement{
		podAdvertisement("rack", map[string]string{"advertise": "bgp"}, &kbgpv1.BGPAttributes{
			Communities:     &kbgpv1.BGPCommunities{Standard: []kbgpv1.StandardCommunity{"65001:1"}, Large: []kbgpv1.LargeCommunity{"65001:1:2"}},
			LocalPreference: ptr.To[int64](100),
		}),
		podAdvertisement("extra", map[string]string{"advertise": "bgp"}, &kbgpv1.BGPAttributes{
			Communities:     &kbgpv1.BGPCommunities{Standard: []kbgpv1.StandardCommunity{"65001:1", "65001:2"}, WellKnown: []kbgpv1.WellKnownCommunity{"no-export"}},
			LocalPreference: ptr.To[int64](200),
		}),
		podAdvertisement("other", map[string]string{"advertise": "other"}, &kbgpv1.BGPAttributes{
			Communities: &kbgpv1.BGPCommunities{Standard: []kbgpv1.StandardCommunity{"9:9"}},
		}),
	}
	bgpSel := &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"advertise": "bgp"}}
	both := []familyAdvertisements{{bgp.FamilyIPv4Unicast, bgpSel}, {bgp.FamilyIPv6Unicast, bgpSel}}
	union := bgp.PathAttributes{
		Communities:      []uint32{65001<<16 | 1, 65001<<16 | 2, 0xFFFFFF01},
		LargeCommunities: []bgp.LargeCommunity{{GlobalAdmin: 65001, LocalData1: 1, LocalData2: 2}},
	}
	unionIBGP := union
	unionIBGP.LocalPreference = ptr.To[uint32](200)
	v4, v6 := netip.MustParsePrefix("10.244.1.0/24"), netip.MustParsePrefix("2001:db8:244:1::/64")

	tests := []struct {
		name string
		fams []familyAdvertisements
		ibgp bool
		want []bgp.Path
	}{
		{"eBGP, dual-stack: one path per family, union of communities, no local preference", both, false,
			[]bgp.Path{{Prefix: v4, Attributes: union}, {Prefix: v6, Attributes: union}}},
		{"iBGP: the highest local preference", both, true,
			[]bgp.Path{{Prefix: v4, Attributes: unionIBGP}, {Prefix: v6, Attributes: unionIBGP}}},
		{"IPv6 family only", []familyAdvertisements{{bgp.FamilyIPv6Unicast, bgpSel}}, false,
			[]bgp.Path{{Prefix: v6, Attributes: union}}},
		{"no selector advertises nothing", []familyAdvertisements{{bgp.FamilyIPv4Unicast, nil}}, false, nil},
		{"a selector matching nothing advertises nothing",
			[]familyAdvertisements{{bgp.FamilyIPv4Unicast, &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"advertise": "none"}}}}, false, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := advertisedPaths(Input{Advertisements: ads, Node: node()}, tc.fams, tc.ibgp)
			if diff := cmp.Diff(tc.want, got, cmpOpts...); diff != "" {
				t.Errorf("paths (-want +got):\n%s", diff)
			}
		})
	}
}
