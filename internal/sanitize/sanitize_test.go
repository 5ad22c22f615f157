package sanitize

import (
	"strings"
	"testing"
)

func TestLine(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"worker-1", "worker-1"},
		{"worker-1\nlevel=error msg=forged", "worker-1_level=error msg=forged"},
		{"a\r\nb", "a__b"},
		{"key\x00hidden", "key_hidden"},
		{"ключ\n", "ключ_"},
		{"\xff\n", "\xff_"}, // invalid UTF-8 is left alone, not turned into U+FFFD
		{"tab\tstays", "tab\tstays"},
	}
	for _, tc := range tests {
		if got := Line(tc.in); got != tc.want {
			t.Errorf("Line(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func FuzzLine(f *testing.F) {
	for _, s := range []string{"", "worker-1", "a\nb\r\x00", "ключ\n", "\xff\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Line(s)
		if len(got) != len(s) || strings.ContainsAny(got, "\n\r\x00") {
			t.Fatalf("Line(%q) = %q", s, got)
		}
		for i := 0; i < len(s); i++ {
			if got[i] != s[i] && !strings.ContainsRune("\n\r\x00", rune(s[i])) {
				t.Fatalf("Line(%q) changed byte %d", s, i)
			}
		}
	})
}

func TestCell(t *testing.T) {
	if got, want := Cell("a\tb\nc"), "a b_c"; got != want {
		t.Errorf("Cell = %q, want %q", got, want)
	}
}
