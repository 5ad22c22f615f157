package intent

import (
	"fmt"
	"testing"

	"kbgp.io/kbgp/internal/bgp"
)

func TestParseCommunities(t *testing.T) {
	std := []struct {
		in      string
		want    uint32
		wantErr bool
	}{
		{"65001:100", 65001<<16 | 100, false},
		{"0:0", 0, false},
		{"65535:65535", 0xFFFFFFFF, false},
		{"65536:1", 0, true},
		{"1:-1", 0, true},
		{"+1:1", 0, true},
		{"1:1:1", 0, true},
		{"1", 0, true},
		{" 1:1", 0, true},
		{"0x1:1", 0, true},
		{"", 0, true},
	}
	for _, tc := range std {
		got, err := ParseStandardCommunity(tc.in)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("ParseStandardCommunity(%q) = %d, %v; want %d, error %v", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
	large, err := ParseLargeCommunity("4294967295:0:1")
	if err != nil || large != (bgp.LargeCommunity{GlobalAdmin: 4294967295, LocalData1: 0, LocalData2: 1}) {
		t.Errorf("ParseLargeCommunity = %+v, %v", large, err)
	}
	if _, err := ParseLargeCommunity("4294967296:0:1"); err == nil {
		t.Error("ParseLargeCommunity accepted a value above 2^32-1")
	}
	if v, err := ParseWellKnownCommunity("no-export"); err != nil || v != 0xFFFFFF01 {
		t.Errorf("no-export = %#x, %v", v, err)
	}
	if _, err := ParseWellKnownCommunity("NO-EXPORT"); err == nil {
		t.Error("well-known names are case-sensitive as the schema's enum")
	}
}

// FuzzParseCommunities: no panic, and a value that parses prints back to its input
// (decimal, no leading zeros) or to the same number.
func FuzzParseCommunities(f *testing.F) {
	for _, s := range []string{"65001:1", "1:2:3", "no-export", "", ":", "::", "99999999999:1", "1:\x00", "4294967295:4294967295:4294967295"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if v, err := ParseStandardCommunity(s); err == nil {
			if again, err := ParseStandardCommunity(fmt.Sprintf("%d:%d", v>>16, v&0xFFFF)); err != nil || again != v {
				t.Fatalf("%q parsed to %#x which does not round-trip", s, v)
			}
		}
		if v, err := ParseLargeCommunity(s); err == nil {
			round := fmt.Sprintf("%d:%d:%d", v.GlobalAdmin, v.LocalData1, v.LocalData2)
			if again, err := ParseLargeCommunity(round); err != nil || again != v {
				t.Fatalf("%q parsed to %+v which does not round-trip", s, v)
			}
		}
		_, _ = ParseWellKnownCommunity(s)
	})
}

func TestFormatCommunitiesRoundTrip(t *testing.T) {
	for _, s := range []string{"65001:100", "0:0", "65535:65535", "no-export", "graceful-shutdown", "blackhole"} {
		v, err := ParseStandardCommunity(s)
		if err != nil {
			v, err = ParseWellKnownCommunity(s)
		}
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if got := FormatStandardCommunity(v); got != s {
			t.Errorf("FormatStandardCommunity(%#x) = %q, want %q", v, got, s)
		}
	}
	lc, _ := ParseLargeCommunity("65001:1:4294967295")
	if got := FormatLargeCommunity(lc); got != "65001:1:4294967295" {
		t.Errorf("FormatLargeCommunity = %q", got)
	}
}
