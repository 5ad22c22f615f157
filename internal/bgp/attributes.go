package bgp

import (
	"cmp"
	"slices"
)

// Merge is what a prefix two sources announce carries: the union of their communities
// and the higher local preference. The next hop is the peer's for the family, the same
// in both (a's when set). Merge is commutative, so the order of sources does not matter.
func (a PathAttributes) Merge(b PathAttributes) PathAttributes {
	out := PathAttributes{
		Communities:      append(slices.Clone(a.Communities), b.Communities...),
		LargeCommunities: append(slices.Clone(a.LargeCommunities), b.LargeCommunities...),
		LocalPreference:  a.LocalPreference,
		NextHop:          a.NextHop,
	}
	if !out.NextHop.IsValid() {
		out.NextHop = b.NextHop
	}
	if b.LocalPreference != nil && (out.LocalPreference == nil || *b.LocalPreference > *out.LocalPreference) {
		out.LocalPreference = b.LocalPreference
	}
	return out.Normalised()
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
