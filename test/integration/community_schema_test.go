package integration

import (
	"testing"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// communitySpellings are written to probe the edges of both the CEL rules on
// StandardCommunity and LargeCommunity and the Go parsers of api/v1alpha1: digit
// counts, bounds, leading zeros, signs, spaces, separators.
var communitySpellings = []string{
	"0:0", "65001:100", "65535:65535", "65536:1", "1:65536", "99999:1",
	"00001:00002", "000001:1", "1:000001", "01:1", "-1:1", "+1:1", "1:-1", " 1:1", "1:1 ",
	"1", "1:", ":1", ":", "1:2:3", "0x1:1", "1.0:1", "１:1",
	"0:0:0", "4294967295:4294967295:4294967295", "4294967296:0:0", "0:4294967296:0",
	"0000000001:1:1", "00000000001:1:1", "9999999999:1:1", "1:2", "1:2:3:4", "1::3", "1:2:-3",
	"no-export", "",
}

// TestCommunitySchemaAgreesWithParser: for every spelling, the API server (running
// the CRD's CEL rules and length limits) accepts a standard or large community exactly
// when kbgpv1.ParseStandardCommunity or kbgpv1.ParseLargeCommunity does, so the agent
// never meets a value the schema let through and it cannot read, nor the reverse.
func TestCommunitySchemaAgreesWithParser(t *testing.T) {
	for _, s := range communitySpellings {
		for _, kind := range []struct {
			field string
			parse func(string) error
		}{
			{"standard", func(s string) error { _, err := kbgpv1.ParseStandardCommunity(s); return err }},
			{"large", func(s string) error { _, err := kbgpv1.ParseLargeCommunity(s); return err }},
		} {
			spec := serviceAdvertisement(`attributes: {communities: {` + kind.field + `: [` + quote(s) + `]}}`)
			schemaErr := create(t, newObject(t, advertisement, spec))
			parseErr := kind.parse(s)
			if (schemaErr == nil) != (parseErr == nil) {
				t.Errorf("%s community %q: API server says %v, parser says %v", kind.field, s, schemaErr, parseErr)
			}
		}
	}
}

// quote writes s as a YAML double-quoted scalar.
func quote(s string) string {
	out := []byte{'"'}
	for _, r := range s {
		if r == '"' || r == '\\' {
			out = append(out, '\\')
		}
		out = append(out, string(r)...)
	}
	return string(append(out, '"'))
}
