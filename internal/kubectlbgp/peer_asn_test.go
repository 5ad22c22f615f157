package kubectlbgp

import (
	"testing"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

func TestPeerASN(t *testing.T) {
	for _, tc := range []struct {
		asn     int64
		dynamic kbgpv1.DynamicASN
		want    string
	}{
		{65002, "", "65002"},
		{0, kbgpv1.DynamicASNExternal, "external"},
		{65101, kbgpv1.DynamicASNExternal, "external (65101)"},
		{65001, kbgpv1.DynamicASNInternal, "internal (65001)"},
	} {
		if got := peerASN(tc.asn, tc.dynamic); got != tc.want {
			t.Errorf("peerASN(%d, %q) = %q, want %q", tc.asn, tc.dynamic, got, tc.want)
		}
	}
}
