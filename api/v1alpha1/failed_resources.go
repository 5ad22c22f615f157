package v1alpha1

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// The schema's bounds on failedResources (see BGPNodeConfigStatus): a status whose list
// or messages exceed them is refused whole, so every writer normalises first.
const (
	// MaxFailedResourceMessage is the bound of failedResources[].message.
	MaxFailedResourceMessage = 1024
	// MaxFailedResources is the bound of the failedResources list, shared by its
	// writers: the agent may write MaxFailedResources-MaxOperatorFailedResources entries
	// and the operator (ignored and unmatched overrides) the rest.
	MaxFailedResources         = 64
	MaxOperatorFailedResources = 8
)

// NormalizeFailedResources returns what one writer may apply: entries with the same
// (kind, name) — the list's key — merged into one whose message joins theirs, sorted
// by kind and name (so an unchanged result compares equal and causes no write), each
// message cut at MaxFailedResourceMessage on a character boundary, and at most limit
// entries: past it, the last kept entry starts by saying how many more there are.
func NormalizeFailedResources(in []FailedResource, limit int) []FailedResource {
	var out []FailedResource
	for _, fr := range in {
		i := slices.IndexFunc(out, func(o FailedResource) bool { return o.Kind == fr.Kind && o.Name == fr.Name })
		if i < 0 {
			out = append(out, fr)
			continue
		}
		if !slices.Contains(strings.Split(out[i].Message, "; "), fr.Message) {
			out[i].Message += "; " + fr.Message
		}
	}
	slices.SortFunc(out, func(a, b FailedResource) int {
		return cmp.Or(strings.Compare(a.Kind, b.Kind), strings.Compare(a.Name, b.Name))
	})
	if limit > 0 && len(out) > limit {
		more := len(out) - limit + 1
		out = out[:limit]
		out[limit-1].Message = fmt.Sprintf("(%d more failed resources not listed) %s", more, out[limit-1].Message)
	}
	for i := range out {
		out[i].Message = TruncateMessage(out[i].Message, MaxFailedResourceMessage)
	}
	return out
}

// TruncateMessage shortens s to at most limit bytes, ending in "..." when cut, without
// splitting a UTF-8 character: status messages have schema bounds.
func TruncateMessage(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	end := limit - len("...")
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end] + "..."
}
