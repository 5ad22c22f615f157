package bgp

import (
	"net/netip"
	"testing"
)

func TestPathAttributesEqual(t *testing.T) {
	one, two, otherOne := uint32(1), uint32(2), uint32(1)
	base := PathAttributes{Communities: []uint32{1, 2}, LargeCommunities: []LargeCommunity{{1, 2, 3}}, LocalPreference: &one, MED: &two,
		Prepend: ASPathPrepend{ASN: 65001, Count: 2}, LinkBandwidth: LinkBandwidth{ASN: 65001, BytesPerSecond: 10}, NextHop: netip.MustParseAddr("10.0.0.1")}
	tests := []struct {
		name   string
		change func(a *PathAttributes)
		want   bool
	}{
		{"the same", func(*PathAttributes) {}, true},
		{"equal values behind other pointers", func(a *PathAttributes) { a.LocalPreference = &otherOne; a.Communities = []uint32{1, 2} }, true},
		{"communities in another order", func(a *PathAttributes) { a.Communities = []uint32{2, 1} }, false},
		{"a community more", func(a *PathAttributes) { a.Communities = append(a.Communities, 3) }, false},
		{"another large community", func(a *PathAttributes) { a.LargeCommunities = []LargeCommunity{{1, 2, 4}} }, false},
		{"local preference unset", func(a *PathAttributes) { a.LocalPreference = nil }, false},
		{"another MED", func(a *PathAttributes) { a.MED = &one }, false},
		{"MED unset", func(a *PathAttributes) { a.MED = nil }, false},
		{"another prepend", func(a *PathAttributes) { a.Prepend.Count = 3 }, false},
		{"another link bandwidth", func(a *PathAttributes) { a.LinkBandwidth.BytesPerSecond = 11 }, false},
		{"another next hop", func(a *PathAttributes) { a.NextHop = netip.MustParseAddr("10.0.0.2") }, false},
		{"next hop unset", func(a *PathAttributes) { a.NextHop = netip.Addr{} }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := base
			b.Communities = append([]uint32(nil), base.Communities...)
			tt.change(&b)
			if got := base.Equal(b); got != tt.want {
				t.Errorf("Equal = %v, want %v", got, tt.want)
			}
			if got := b.Equal(base); got != tt.want {
				t.Errorf("Equal, the other way = %v, want %v", got, tt.want)
			}
		})
	}
}
