package v1alpha1

import (
	"fmt"
	"strconv"
	"strings"
)

// The community syntax of the API, written once: the agent parses with it, the
// converter normalises Cilium's and MetalLB's values with it, and the CEL rules on
// StandardCommunity and LargeCommunity accept exactly what it accepts (the integration
// test TestCommunitySchemaAgreesWithParser holds both to one table).

// maxCommunityLength bounds the input before any parsing: the longest valid value,
// "4294967295:4294967295:4294967295", has 32 bytes (the schema's MaxLength).
const maxCommunityLength = 32

// wellKnownCommunities are the RFC 1997 / 7999 / 8326 / 3765 values by the names
// WellKnownCommunity accepts.
var wellKnownCommunities = map[WellKnownCommunity]uint32{
	"no-export":           0xFFFFFF01,
	"no-advertise":        0xFFFFFF02,
	"no-export-subconfed": 0xFFFFFF03,
	"no-peer":             0xFFFFFF04,
	"blackhole":           0xFFFF029A,
	"graceful-shutdown":   0xFFFF0000,
}

// ParseStandardCommunity parses "ASN:value": each part 1 to 5 decimal digits, at most
// 65535.
func ParseStandardCommunity(s string) (uint32, error) {
	parts, err := splitCommunity(s, 2)
	if err != nil {
		return 0, err
	}
	hi, err := communityPart(parts[0], 5, 16)
	if err != nil {
		return 0, err
	}
	lo, err := communityPart(parts[1], 5, 16)
	if err != nil {
		return 0, err
	}
	return uint32(hi)<<16 | uint32(lo), nil
}

// ParseLargeCommunity parses "a:b:c" (RFC 8092: global administrator, local data 1
// and 2): each part 1 to 10 decimal digits, at most 4294967295.
func ParseLargeCommunity(s string) ([3]uint32, error) {
	parts, err := splitCommunity(s, 3)
	if err != nil {
		return [3]uint32{}, err
	}
	var v [3]uint32
	for i, p := range parts {
		n, err := communityPart(p, 10, 32)
		if err != nil {
			return [3]uint32{}, err
		}
		v[i] = uint32(n)
	}
	return v, nil
}

// ParseWellKnownCommunity returns the value of a well-known community name; names are
// case-sensitive, as the schema's enum.
func ParseWellKnownCommunity(s string) (uint32, error) {
	v, ok := wellKnownCommunities[WellKnownCommunity(s)]
	if !ok {
		if len(s) > maxCommunityLength {
			s = s[:maxCommunityLength] + "..."
		}
		return 0, fmt.Errorf("unknown well-known community %q", s)
	}
	return v, nil
}

// StandardCommunityOf writes a standard community as "ASN:value".
func StandardCommunityOf(v uint32) StandardCommunity {
	return StandardCommunity(strconv.FormatUint(uint64(v>>16), 10) + ":" + strconv.FormatUint(uint64(v&0xffff), 10))
}

// LargeCommunityOf writes a large community as "a:b:c".
func LargeCommunityOf(v [3]uint32) LargeCommunity {
	return LargeCommunity(fmt.Sprintf("%d:%d:%d", v[0], v[1], v[2]))
}

// FormatStandardCommunity writes an RFC 1997 community as the API accepts it: its
// well-known name where there is one, else "ASN:value".
func FormatStandardCommunity(v uint32) string {
	for name, wk := range wellKnownCommunities {
		if wk == v {
			return string(name)
		}
	}
	return string(StandardCommunityOf(v))
}

func splitCommunity(s string, n int) ([]string, error) {
	if len(s) > maxCommunityLength {
		return nil, fmt.Errorf("community is %d bytes, longer than %d", len(s), maxCommunityLength)
	}
	parts := strings.Split(s, ":")
	if len(parts) != n {
		return nil, fmt.Errorf("community %q: want %d colon-separated numbers", s, n)
	}
	return parts, nil
}

// communityPart accepts 1 to digits decimal digits only (no sign, no base prefix, no
// spaces) of a value that fits bits.
func communityPart(s string, digits, bits int) (uint64, error) {
	if s == "" || len(s) > digits || strings.TrimLeft(s, "0123456789") != "" {
		return 0, fmt.Errorf("community part %q is not a decimal number of 1 to %d digits", s, digits)
	}
	v, err := strconv.ParseUint(s, 10, bits)
	if err != nil {
		return 0, fmt.Errorf("community part %q is out of range", s)
	}
	return v, nil
}
