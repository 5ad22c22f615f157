package routerid

import "testing"

func TestSanitize(t *testing.T) {
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
		if got := Sanitize(tc.in); got != tc.want {
			t.Errorf("Sanitize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
