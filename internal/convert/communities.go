package convert

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// otherWellKnown are the well-known names Cilium accepts and kbgp does not, with their
// values (RFC 1997 and the IANA registry): written as standard communities they put
// the same bits on the wire.
var otherWellKnown = map[string]string{
	"internet":                   "0:0",
	"planned-shut":               "65535:0",
	"accept-own":                 "65535:1",
	"route-filter-translated-v4": "65535:2",
	"route-filter-v4":            "65535:3",
	"route-filter-translated-v6": "65535:4",
	"route-filter-v6":            "65535:5",
	"llgr-stale":                 "65535:6",
	"no-llgr":                    "65535:7",
}

// standardCommunity normalises an RFC 1997 community, written "ASN:value" or as one
// 32-bit decimal (both accepted by Cilium, with any leading zeros), to kbgp's
// "ASN:value".
func standardCommunity(s string) (string, bool) {
	if strings.Contains(s, ":") {
		v, err := kbgpv1.ParseStandardCommunity(withoutLeadingZeros(s))
		return string(kbgpv1.StandardCommunityOf(v)), err == nil
	}
	v, err := strconv.ParseUint(s, 10, 32)
	if err != nil {
		return "", false
	}
	return string(kbgpv1.StandardCommunityOf(uint32(v))), true
}

// largeCommunity normalises an RFC 8092 large community "a:b:c", leading zeros
// allowed.
func largeCommunity(s string) (string, bool) {
	v, err := kbgpv1.ParseLargeCommunity(withoutLeadingZeros(s))
	return string(kbgpv1.LargeCommunityOf(v)), err == nil
}

// withoutLeadingZeros drops the leading zeros of each colon-separated part, which the
// other projects accept and kbgp's syntax bounds by digit count ("065001:07" is
// "65001:7").
func withoutLeadingZeros(s string) string {
	parts := strings.Split(s, ":")
	for i, p := range parts {
		if t := strings.TrimLeft(p, "0"); t != p {
			parts[i] = cmp.Or(t, "0")
		}
	}
	return strings.Join(parts, ":")
}

// communitySet collects communities without duplicates (kbgp's lists are sets).
type communitySet struct{ c kbgpv1.BGPCommunities }

func (s *communitySet) standard(v string) {
	if !slices.Contains(s.c.Standard, kbgpv1.StandardCommunity(v)) {
		s.c.Standard = append(s.c.Standard, kbgpv1.StandardCommunity(v))
	}
}

func (s *communitySet) large(v string) {
	if !slices.Contains(s.c.Large, kbgpv1.LargeCommunity(v)) {
		s.c.Large = append(s.c.Large, kbgpv1.LargeCommunity(v))
	}
}

func (s *communitySet) wellKnown(v string) {
	if !slices.Contains(s.c.WellKnown, kbgpv1.WellKnownCommunity(v)) {
		s.c.WellKnown = append(s.c.WellKnown, kbgpv1.WellKnownCommunity(v))
	}
}

// result is the collected communities, nil when there are none.
func (s *communitySet) result() *kbgpv1.BGPCommunities {
	if len(s.c.Standard)+len(s.c.Large)+len(s.c.WellKnown) == 0 {
		return nil
	}
	c := s.c
	return &c
}

// ciliumCommunities converts Cilium's attributes.communities (standard, large,
// wellKnown), the same shape in CiliumBGPAdvertisement and in the path attributes of a
// peering policy.
func ciliumCommunities(n node) *kbgpv1.BGPCommunities {
	if !n.ok {
		return nil
	}
	var set communitySet
	for _, item := range n.list("standard") {
		if s, ok := item.asStr(); ok {
			if v, ok := standardCommunity(s); ok {
				set.standard(v)
			} else {
				item.warn("%q is not a standard community (ASN:value or a 32-bit number): dropped", s)
			}
		}
	}
	for _, item := range n.list("large") {
		if s, ok := item.asStr(); ok {
			if v, ok := largeCommunity(s); ok {
				set.large(v)
			} else {
				item.warn("%q is not a large community (a:b:c): dropped", s)
			}
		}
	}
	for _, item := range n.list("wellKnown") {
		s, ok := item.asStr()
		switch {
		case !ok:
		case wellKnown(s):
			set.wellKnown(s)
		case otherWellKnown[s] != "":
			set.standard(otherWellKnown[s]) // the same value, which kbgp has no name for
		default:
			item.warn("%q is not a well-known community: dropped", s)
		}
	}
	return set.result()
}

// wellKnown reports whether kbgp has the well-known community name s.
func wellKnown(s string) bool {
	_, err := kbgpv1.ParseWellKnownCommunity(s)
	return err == nil
}
