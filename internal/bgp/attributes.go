package bgp

import (
	"cmp"
	"slices"
)

// Merge is what a prefix two sources announce carries: the union of their communities;
// for local preference, MED and AS-path prepend a set value beats an unset one and of
// two set values the higher wins (the longer prepend, of equal counts the higher ASN).
// The higher MED and the longer prepend make the prefix less preferred: a source that
// asks routers to avoid a node is not undone by a broader one. The next hop is the
// peer's for the family, the same in both (a's when set). Merge is commutative, so the
// order of sources does not matter. Of two link bandwidths the higher wins (one
// advertisement asking for weighted ECMP is enough; the same node and Service give
// the same bandwidth to every advertisement that asks).
func (a PathAttributes) Merge(b PathAttributes) PathAttributes {
	out := PathAttributes{
		Communities:      append(slices.Clone(a.Communities), b.Communities...),
		LargeCommunities: append(slices.Clone(a.LargeCommunities), b.LargeCommunities...),
		LocalPreference:  higher(a.LocalPreference, b.LocalPreference),
		MED:              higher(a.MED, b.MED),
		Prepend:          a.Prepend,
		LinkBandwidth:    a.LinkBandwidth,
		NextHop:          a.NextHop,
	}
	if !out.NextHop.IsValid() {
		out.NextHop = b.NextHop
	}
	if cmp.Or(cmp.Compare(b.Prepend.Count, a.Prepend.Count), cmp.Compare(b.Prepend.ASN, a.Prepend.ASN)) > 0 {
		out.Prepend = b.Prepend
	}
	if cmp.Or(cmp.Compare(b.LinkBandwidth.BytesPerSecond, a.LinkBandwidth.BytesPerSecond), cmp.Compare(b.LinkBandwidth.ASN, a.LinkBandwidth.ASN)) > 0 {
		out.LinkBandwidth = b.LinkBandwidth
	}
	return out.Normalised()
}

// Equal reports whether a and b are the same attributes, their communities in the
// same order (of two Normalised sets: the same communities). It is the cheap test for
// the common case, a run of paths that carry one attribute set.
func (a PathAttributes) Equal(b PathAttributes) bool {
	return slices.Equal(a.Communities, b.Communities) && slices.Equal(a.LargeCommunities, b.LargeCommunities) &&
		equalOptional(a.LocalPreference, b.LocalPreference) && equalOptional(a.MED, b.MED) &&
		a.Prepend == b.Prepend && a.LinkBandwidth == b.LinkBandwidth && a.NextHop == b.NextHop
}

func equalOptional(a, b *uint32) bool {
	return a == b || a != nil && b != nil && *a == *b
}

// higher is the higher of two optional values; nil when both are.
func higher(a, b *uint32) *uint32 {
	if b != nil && (a == nil || *b > *a) {
		return b
	}
	return a
}

// Normalised sorts and de-duplicates the communities, so equal attribute sets compare
// equal and a path whose attributes did not really change is not announced again.
func (a PathAttributes) Normalised() PathAttributes {
	slices.Sort(a.Communities)
	a.Communities = slices.Compact(a.Communities)
	slices.SortFunc(a.LargeCommunities, func(x, y LargeCommunity) int {
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
