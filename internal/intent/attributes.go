package intent

import (
	"cmp"
	"slices"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
)

// attributes converts an advertisement's attributes. Values the schema admitted always
// parse; one that does not is skipped rather than failing the whole advertisement.
func attributes(a *kbgpv1.BGPAttributes, ibgp bool) bgp.PathAttributes {
	var out bgp.PathAttributes
	if a == nil {
		return out
	}
	if c := a.Communities; c != nil {
		for _, s := range c.Standard {
			if v, err := ParseStandardCommunity(string(s)); err == nil {
				out.Communities = append(out.Communities, v)
			}
		}
		for _, s := range c.WellKnown {
			if v, err := ParseWellKnownCommunity(string(s)); err == nil {
				out.Communities = append(out.Communities, v)
			}
		}
		for _, s := range c.Large {
			if v, err := ParseLargeCommunity(string(s)); err == nil {
				out.LargeCommunities = append(out.LargeCommunities, v)
			}
		}
	}
	if ibgp && a.LocalPreference != nil {
		lp := uint32(*a.LocalPreference)
		out.LocalPreference = &lp
	}
	return normalise(out)
}

// mergeAttributes is the union of communities and the highest local preference.
func mergeAttributes(a, b bgp.PathAttributes) bgp.PathAttributes {
	out := bgp.PathAttributes{
		Communities:      append(slices.Clone(a.Communities), b.Communities...),
		LargeCommunities: append(slices.Clone(a.LargeCommunities), b.LargeCommunities...),
		LocalPreference:  a.LocalPreference,
	}
	if b.LocalPreference != nil && (out.LocalPreference == nil || *b.LocalPreference > *out.LocalPreference) {
		out.LocalPreference = b.LocalPreference
	}
	return normalise(out)
}

// normalise sorts and de-duplicates, so equal attribute sets compare equal and the
// manager does not re-announce a path whose attributes did not really change.
func normalise(a bgp.PathAttributes) bgp.PathAttributes {
	slices.Sort(a.Communities)
	a.Communities = slices.Compact(a.Communities)
	slices.SortFunc(a.LargeCommunities, func(x, y bgp.LargeCommunity) int {
		return cmp.Or(cmp.Compare(x.GlobalAdmin, y.GlobalAdmin), cmp.Compare(x.LocalData1, y.LocalData1), cmp.Compare(x.LocalData2, y.LocalData2))
	})
	a.LargeCommunities = slices.Compact(a.LargeCommunities)
	if len(a.Communities) == 0 {
		a.Communities = nil
	}
	if len(a.LargeCommunities) == 0 {
		a.LargeCommunities = nil
	}
	return a
}
