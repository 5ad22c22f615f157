package intent

import (
	"fmt"
	"strconv"
	"strings"

	"kbgp.io/kbgp/internal/bgp"
)

// maxCommunityLength bounds the input before any parsing: the longest valid value,
// "4294967295:4294967295:4294967295", has 32 bytes.
const maxCommunityLength = 32

// wellKnownCommunities are the RFC 1997 / 7999 / 8326 / 3765 values by the names the
// API accepts.
var wellKnownCommunities = map[string]uint32{
	"no-export":           0xFFFFFF01,
	"no-advertise":        0xFFFFFF02,
	"no-export-subconfed": 0xFFFFFF03,
	"no-peer":             0xFFFFFF04,
	"blackhole":           0xFFFF029A,
	"graceful-shutdown":   0xFFFF0000,
}

// ParseStandardCommunity parses "ASN:value", each 0..65535.
func ParseStandardCommunity(s string) (uint32, error) {
	parts, err := split(s, 2)
	if err != nil {
		return 0, err
	}
	hi, err := parseUint(parts[0], 16)
	if err != nil {
		return 0, err
	}
	lo, err := parseUint(parts[1], 16)
	if err != nil {
		return 0, err
	}
	return uint32(hi)<<16 | uint32(lo), nil
}

// ParseLargeCommunity parses "a:b:c", each 0..4294967295.
func ParseLargeCommunity(s string) (bgp.LargeCommunity, error) {
	parts, err := split(s, 3)
	if err != nil {
		return bgp.LargeCommunity{}, err
	}
	var v [3]uint32
	for i, p := range parts {
		n, err := parseUint(p, 32)
		if err != nil {
			return bgp.LargeCommunity{}, err
		}
		v[i] = uint32(n)
	}
	return bgp.LargeCommunity{GlobalAdmin: v[0], LocalData1: v[1], LocalData2: v[2]}, nil
}

// ParseWellKnownCommunity returns the value of a well-known community name.
func ParseWellKnownCommunity(s string) (uint32, error) {
	v, ok := wellKnownCommunities[s]
	if !ok {
		return 0, fmt.Errorf("unknown well-known community %q", truncate(s))
	}
	return v, nil
}

func split(s string, n int) ([]string, error) {
	if len(s) > maxCommunityLength {
		return nil, fmt.Errorf("community is %d bytes, longer than %d", len(s), maxCommunityLength)
	}
	parts := strings.Split(s, ":")
	if len(parts) != n {
		return nil, fmt.Errorf("community %q: want %d colon-separated numbers", s, n)
	}
	return parts, nil
}

// parseUint accepts decimal digits only (no sign, no base prefix, no spaces).
func parseUint(s string, bits int) (uint64, error) {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, fmt.Errorf("community part %q is not a decimal number", s)
	}
	v, err := strconv.ParseUint(s, 10, bits)
	if err != nil {
		return 0, fmt.Errorf("community part %q is out of range", s)
	}
	return v, nil
}

func truncate(s string) string {
	if len(s) > maxCommunityLength {
		return s[:maxCommunityLength] + "..."
	}
	return s
}

// FormatStandardCommunity writes an RFC 1997 community as the API accepts it: a
// well-known name where there is one, else "ASN:value".
func FormatStandardCommunity(v uint32) string {
	for name, wk := range wellKnownCommunities {
		if wk == v {
			return name
		}
	}
	return fmt.Sprintf("%d:%d", v>>16, v&0xffff)
}

// FormatLargeCommunity writes an RFC 8092 community as "a:b:c".
func FormatLargeCommunity(c bgp.LargeCommunity) string {
	return fmt.Sprintf("%d:%d:%d", c.GlobalAdmin, c.LocalData1, c.LocalData2)
}
