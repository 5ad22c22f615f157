package intent

import (
	"testing"
	"time"

	"k8s.io/utils/ptr"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
)

func TestBFD(t *testing.T) {
	tests := []struct {
		name string
		in   *kbgpv1.BGPBFD
		want bgp.BFD
	}{
		{"not configured", nil, bgp.BFD{}},
		{"disabled: nothing else counts", &kbgpv1.BGPBFD{Enabled: false, DetectMultiplier: ptr.To[int32](5)}, bgp.BFD{}},
		{"enabled: the schema's defaults", &kbgpv1.BGPBFD{Enabled: true},
			bgp.BFD{Enabled: true, MinRx: 300 * time.Millisecond, MinTx: 300 * time.Millisecond, DetectMultiplier: 3}},
		{"enabled with every field", &kbgpv1.BGPBFD{Enabled: true, MinRxMilliseconds: ptr.To[int32](100), MinTxMilliseconds: ptr.To[int32](50), DetectMultiplier: ptr.To[int32](5)},
			bgp.BFD{Enabled: true, MinRx: 100 * time.Millisecond, MinTx: 50 * time.Millisecond, DetectMultiplier: 5}},
	}
	for _, tt := range tests {
		if got := bfd(tt.in); got != tt.want {
			t.Errorf("%s: bfd = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}
