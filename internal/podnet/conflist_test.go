package podnet

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"kbgp.io/kbgp/internal/testing/golden"

	"github.com/google/go-cmp/cmp"
)

// TestConflistGolden renders the configuration of an IPv4, an IPv6 and a dual-stack
// node. Regenerate with KBGP_UPDATE_GOLDEN=1.
func TestConflistGolden(t *testing.T) {
	for name, cidrs := range map[string][]string{
		"ipv4.conflist":      {"10.244.1.0/24"},
		"ipv6.conflist":      {"2001:db8:1::/64"},
		"dualstack.conflist": {"10.244.1.0/24", "2001:db8:1::/64"},
	} {
		t.Run(name, func(t *testing.T) {
			prefixes, err := PodCIDRs(cidrs, "")
			if err != nil {
				t.Fatal(err)
			}
			got, err := Conflist(Config{PodCIDRs: prefixes, Bridge: "cbr0", MTU: 1450, StateDir: "/var/lib/kbgp/cni"})
			if err != nil {
				t.Fatal(err)
			}
			if !json.Valid(got) {
				t.Fatalf("not JSON:\n%s", got)
			}
			golden.Compare(t, filepath.Join("testdata", name), got)
			if strings.Contains(string(got), "gateway") {
				t.Errorf("the configuration names a gateway; kbgp-cni takes it from the result:\n%s", got)
			}
		})
	}
}

func TestPodCIDRs(t *testing.T) {
	tests := []struct {
		name     string
		podCIDRs []string
		podCIDR  string
		want     string
		err      string
	}{
		{name: "podCIDRs", podCIDRs: []string{"10.244.1.0/24", "2001:db8:1::/64"}, podCIDR: "10.9.9.0/24", want: "10.244.1.0/24 2001:db8:1::/64"},
		{name: "podCIDR fallback", podCIDR: "10.244.2.0/24", want: "10.244.2.0/24"},
		{name: "none", want: ""},
		{name: "not a CIDR", podCIDRs: []string{"10.244.1.0/24", "10.244.2.0"}, err: `pod CIDR "10.244.2.0"`},
		{name: "host bits", podCIDRs: []string{"10.244.1.1/24"}, err: "has host bits set (the network is 10.244.1.0/24)"},
		{name: "two of one family", podCIDRs: []string{"10.244.1.0/24", "10.244.2.0/24"}, err: "at most one per family"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := append([]string(nil), tc.podCIDRs...)
			got, err := PodCIDRs(tc.podCIDRs, tc.podCIDR)
			if !cmp.Equal(in, tc.podCIDRs, cmp.Comparer(func(a, b string) bool { return a == b })) {
				t.Errorf("input changed: %v -> %v", in, tc.podCIDRs)
			}
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var s []string
			for _, p := range got {
				s = append(s, p.String())
			}
			if strings.Join(s, " ") != tc.want {
				t.Errorf("got %v, want %s", s, tc.want)
			}
		})
	}
}

func TestConflistNeedsACIDR(t *testing.T) {
	if _, err := Conflist(Config{Bridge: "cbr0", MTU: 1500}); err == nil {
		t.Fatal("a configuration without pod CIDR was rendered")
	}
}

// FuzzPodCIDRs: whatever a Node holds, reading it never panics, and what is accepted
// renders as valid JSON whose ranges are exactly the accepted prefixes.
func FuzzPodCIDRs(f *testing.F) {
	for _, s := range []string{"10.244.1.0/24", "2001:db8::/64", "10.244.1.1/24", "::/0", "1.2.3.4/33", ""} {
		f.Add(s, "fd01::/48")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		prefixes, err := PodCIDRs([]string{a, b}, "")
		if err != nil || len(prefixes) == 0 {
			return
		}
		out, err := Conflist(Config{PodCIDRs: prefixes, Bridge: "cbr0", MTU: 1500})
		if err != nil || !json.Valid(out) {
			t.Fatalf("conflist of %v: %v\n%s", prefixes, err, out)
		}
		for _, p := range prefixes {
			if p != p.Masked() || !strings.Contains(string(out), `"subnet": "`+p.String()+`"`) {
				t.Errorf("range %s missing or not a network:\n%s", p, out)
			}
		}
	})
}
