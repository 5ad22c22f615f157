package v1alpha1

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestNormalizeFailedResources(t *testing.T) {
	in := []FailedResource{
		{Kind: "BGPNodeConfigOverride", Name: "z", Message: "one"},
		{Kind: "BGPNodeConfigOverride", Name: "a", Message: "first"},
		{Kind: "BGPNodeConfigOverride", Name: "z", Message: "two"},
		{Kind: "BGPNodeConfigOverride", Name: "z", Message: "one"},
		{Kind: "BGPNodeConfigOverride", Name: "long", Message: strings.Repeat("é", 1500)},
		{Kind: "BGPConfig", Name: "b", Message: "kind sorts first"},
	}
	got := NormalizeFailedResources(in, 0)
	if len(got) != 4 || got[0].Name != "b" || got[1].Name != "a" || got[2].Name != "long" || got[3].Message != "one; two" {
		t.Fatalf("got %+v", got)
	}
	if m := got[2].Message; len(m) > MaxFailedResourceMessage || !utf8.ValidString(m) || !strings.HasSuffix(m, "...") {
		t.Errorf("long message: %d bytes, valid UTF-8 %v, ends %q", len(m), utf8.ValidString(m), m[len(m)-5:])
	}
}

func TestNormalizeFailedResourcesBoundsTheList(t *testing.T) {
	var in []FailedResource
	for i := range 100 {
		in = append(in, FailedResource{Kind: "Service", Name: fmt.Sprintf("shop/svc-%03d", i), Message: "refused"})
	}
	got := NormalizeFailedResources(in, 56)
	if len(got) != 56 {
		t.Fatalf("%d entries, want 56", len(got))
	}
	if last := got[55]; last.Name != "shop/svc-055" || !strings.HasPrefix(last.Message, "(45 more failed resources not listed) ") {
		t.Errorf("last entry %+v", last)
	}
}

func FuzzNormalizeFailedResources(f *testing.F) {
	f.Add("Secret", "md5", "not found", "Secret", "md5", "no key", 3)
	f.Fuzz(func(t *testing.T, k1, n1, m1, k2, n2, m2 string, limit int) {
		in := []FailedResource{{Kind: k1, Name: n1, Message: strings.Repeat(m1, 50)}, {Kind: k2, Name: n2, Message: m2}}
		for _, fr := range NormalizeFailedResources(in, limit%5) {
			if len(fr.Message) > MaxFailedResourceMessage {
				t.Fatalf("message of %d bytes", len(fr.Message))
			}
			if utf8.ValidString(m1) && utf8.ValidString(m2) && !utf8.ValidString(fr.Message) {
				t.Fatalf("cut splits a character: %q", fr.Message)
			}
		}
	})
}
