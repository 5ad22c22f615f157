package v1alpha1

import (
	"fmt"
	"testing"
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
		{"00001:00002", 1<<16 | 2, false},
		{"000001:1", 0, true}, // six digits: the schema's pattern refuses it too
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
	if err != nil || large != [3]uint32{4294967295, 0, 1} {
		t.Errorf("ParseLargeCommunity = %v, %v", large, err)
	}
	for _, bad := range []string{"4294967296:0:1", "00000000001:0:1", "1:2", "1:2:3:4", "1::3"} {
		if _, err := ParseLargeCommunity(bad); err == nil {
			t.Errorf("ParseLargeCommunity accepted %q", bad)
		}
	}
	if v, err := ParseWellKnownCommunity("no-export"); err != nil || v != 0xFFFFFF01 {
		t.Errorf("no-export = %#x, %v", v, err)
	}
	if _, err := ParseWellKnownCommunity("NO-EXPORT"); err == nil {
		t.Error("well-known names are case-sensitive as the schema's enum")
	}
}

// FuzzParseCommunities: no panic, and a value that parses prints back to a value that
// parses to the same number.
func FuzzParseCommunities(f *testing.F) {
	for _, s := range []string{"65001:1", "1:2:3", "no-export", "", ":", "::", "99999999999:1", "1:\x00", "4294967295:4294967295:4294967295"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if v, err := ParseStandardCommunity(s); err == nil {
			if again, err := ParseStandardCommunity(string(StandardCommunityOf(v))); err != nil || again != v {
				t.Fatalf("%q parsed to %#x which does not round-trip", s, v)
			}
		}
		if v, err := ParseLargeCommunity(s); err == nil {
			if again, err := ParseLargeCommunity(string(LargeCommunityOf(v))); err != nil || again != v {
				t.Fatalf("%q parsed to %v which does not round-trip", s, v)
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
	if got := StandardCommunityOf(0xFFFFFF01); got != "65535:65281" {
		t.Errorf("StandardCommunityOf(no-export) = %q, want the number", got)
	}
	lc, _ := ParseLargeCommunity("65001:1:4294967295")
	if got := LargeCommunityOf(lc); got != "65001:1:4294967295" {
		t.Errorf("LargeCommunityOf = %q", got)
	}
	if got := fmt.Sprint(len(wellKnownCommunities)); got != "6" {
		t.Errorf("%s well-known communities; the schema's enum has 6", got)
	}
}
