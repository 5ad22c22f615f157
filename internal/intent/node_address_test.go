package intent

import (
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
)

// TestNodeAddressAdvertisements: without an interface the Node's InternalIPs are
// announced as host routes, with one the global addresses the agent found on it
// (link-local ones never); an interface that is not on the node is reported.
func TestNodeAddressAdvertisements(t *testing.T) {
	sel := &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"advertise": "node"}}
	fams := []familyAdvertisements{{bgp.FamilyIPv4Unicast, sel}, {bgp.FamilyIPv6Unicast, sel}}
	ad := func(name string, na *kbgpv1.NodeAddressAdvertisement) kbgpv1.BGPAdvertisement {
		a := podAdvertisement(name, map[string]string{"advertise": "node"}, nil)
		a.Spec.Advertisements[0].AdvertisementType = kbgpv1.AdvertisementNodeAddress
		a.Spec.Advertisements[0].NodeAddress = na
		return a
	}
	lo := map[string][]netip.Addr{"lo": {netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("10.34.255.1"), netip.MustParseAddr("fe80::1"), netip.MustParseAddr("2001:db8:34::1")}}
	tests := []struct {
		name   string
		ad     kbgpv1.BGPAdvertisement
		found  map[string][]netip.Addr
		want   []string
		failed int
	}{
		{name: "the Node's InternalIPs", ad: ad("internal", nil), want: []string{"10.0.0.10/32", "2001:db8::10/128"}},
		{name: "the global addresses of lo", ad: ad("lo", &kbgpv1.NodeAddressAdvertisement{Interface: "lo"}), found: lo, want: []string{"10.34.255.1/32", "2001:db8:34::1/128"}},
		{name: "an interface not on the node", ad: ad("gone", &kbgpv1.NodeAddressAdvertisement{Interface: "lo9"}), found: lo, failed: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := Input{Node: node(), Advertisements: []kbgpv1.BGPAdvertisement{tc.ad}, InterfaceAddresses: tc.found}
			var got []string
			for _, p := range advertisedPaths(in, fams, false) {
				got = append(got, p.Prefix.String())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("announced (-want +got):\n%s", diff)
			}
			if n := len(missingAddressInterfaces(in)); n != tc.failed {
				t.Errorf("%d failures, want %d", n, tc.failed)
			}
		})
	}
}
