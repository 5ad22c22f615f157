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

// maxFailedMessage is the schema's bound on failedResources[].message.
const maxFailedMessage = 1024

// MergeFailedResources merges entries for the same (kind, name) into one, joining
// their messages, and sorts them: failedResources is a map keyed by (kind, name), and
// a stable order means an unchanged result compares equal and causes no write.
func MergeFailedResources(in []kbgpv1.FailedResource) []kbgpv1.FailedResource {
	var out []kbgpv1.FailedResource
	for _, fr := range in {
		i := slices.IndexFunc(out, func(o kbgpv1.FailedResource) bool { return o.Kind == fr.Kind && o.Name == fr.Name })
		if i < 0 {
			out = append(out, fr)
			continue
		}
		out[i].Message += "; " + fr.Message
	}
	for i := range out {
		if len(out[i].Message) > maxFailedMessage {
			out[i].Message = out[i].Message[:maxFailedMessage-3] + "..."
		}
	}
	slices.SortFunc(out, func(a, b kbgpv1.FailedResource) int {
		if c := strings.Compare(a.Kind, b.Kind); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}
