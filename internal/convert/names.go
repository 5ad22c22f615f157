package convert

import (
	"strings"
)

// dnsLabel turns a name into a DNS label (lowercase letters, digits and '-', at most
// 63 characters), which kbgp requires of peer names: Cilium allows any string of up to
// 255 characters and MetalLB object names may hold dots. The same input always gives
// the same label, so a CiliumBGPNodeConfigOverride finds the peer its cluster config
// was converted with.
func dnsLabel(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
	}
	out := strings.TrimRight(b.String(), "-")
	if len(out) > 63 {
		out = strings.TrimRight(out[:63], "-")
	}
	if out == "" {
		out = "peer"
	}
	return out
}

// peerName is dnsLabel with a warning at n when the name had to change.
func peerName(n node, name string) string {
	label := dnsLabel(name)
	if label != name {
		n.warn("%q is not a DNS label, which kbgp requires of a peer name: renamed %s", name, label)
	}
	return label
}

// labelValue turns a name into a label value (at most 63 characters).
func labelValue(s string) string {
	if len(s) > 63 {
		s = s[:63]
	}
	return strings.TrimRight(s, "-.")
}
