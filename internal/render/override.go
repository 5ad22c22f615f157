package render

import (
	"fmt"
	"slices"
	"strings"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// PickOverride chooses the override that applies to a node from all overrides whose
// nodeRef names it: the alphabetically first wins, so the choice never depends on list
// order. The others are returned as failed resources for the node's status.
func PickOverride(overrides []kbgpv1.BGPNodeConfigOverride) (*kbgpv1.BGPNodeConfigOverride, []kbgpv1.FailedResource) {
	if len(overrides) == 0 {
		return nil, nil
	}
	sorted := make([]*kbgpv1.BGPNodeConfigOverride, len(overrides))
	for i := range overrides {
		sorted[i] = &overrides[i]
	}
	slices.SortFunc(sorted, func(a, b *kbgpv1.BGPNodeConfigOverride) int { return strings.Compare(a.Name, b.Name) })
	applied := sorted[0]
	var ignored []kbgpv1.FailedResource
	for _, o := range sorted[1:] {
		ignored = append(ignored, overrideProblem(o.Name,
			fmt.Sprintf("ignored: override %s also targets this node and applies (the alphabetically first wins)", applied.Name)))
	}
	return applied, ignored
}

func overrideProblem(name, message string) kbgpv1.FailedResource {
	return kbgpv1.FailedResource{Kind: "BGPNodeConfigOverride", Name: name, Message: message}
}
