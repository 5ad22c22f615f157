package convert

import (
	"slices"
	"strconv"
	"strings"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// kbgpWellKnown are the well-known communities kbgp takes by name.
var kbgpWellKnown = []string{"no-export", "no-advertise", "no-export-subconfed", "no-peer", "blackhole", "graceful-shutdown"}

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
// 32-bit decimal (both accepted by Cilium), to kbgp's "ASN:value".
func standardCommunity(s string) (string, bool) {
	if hi, lo, found := strings.Cut(s, ":"); found {
		a, errA := strconv.ParseUint(hi, 10, 16)
		b, errB := strconv.ParseUint(lo, 10, 16)
		if errA != nil || errB != nil {
			return "", false
		}
		return strconv.FormatUint(a, 10) + ":" + strconv.FormatUint(b, 10), true
	}
	v, err := strconv.ParseUint(s, 10, 32)
	if err != nil {
		return "", false
	}
	return strconv.FormatUint(v>>16, 10) + ":" + strconv.FormatUint(v&0xffff, 10), true
}

// largeCommunity normalises an RFC 8092 large community "a:b:c".
func largeCommunity(s string) (string, bool) {
	parts := strings.Split(s, ":")
	if len(parts) != 3 {
		return "", false
	}
	for i, p := range parts {
		v, err := strconv.ParseUint(p, 10, 32)
		if err != nil {
			return "", false
		}
		parts[i] = strconv.FormatUint(v, 10)
	}
	return strings.Join(parts, ":"), true
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
		case slices.Contains(kbgpWellKnown, s):
			set.wellKnown(s)
		case otherWellKnown[s] != "":
			set.standard(otherWellKnown[s]) // the same value, which kbgp has no name for
		default:
			item.warn("%q is not a well-known community: dropped", s)
		}
	}
	return set.result()
}
