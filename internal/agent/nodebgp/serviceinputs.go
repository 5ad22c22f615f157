package nodebgp

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/types"
)

// serviceInputs are, by Service, the versions of the objects its entry in the exports
// index was computed from: the Service and its EndpointSlices. A Service event whose
// objects are those versions changes nothing the index would compute — the start-up's
// full build already set every Service its queued events name, and an informer resync
// names every Service again — so reconcileService skips it. An entry goes when the index
// holds the Service's change back (it must be set again with the same objects) and
// with the index itself (a full build records anew).
type serviceInputs map[types.NamespacedName]string

// inputVersion names the versions of svc and its slices, "" for a deleted Service
// (never skipped: deleting costs little and must not be missed).
func inputVersion(svc *corev1.Service, endpointSlices []discoveryv1.EndpointSlice) string {
	if svc == nil {
		return ""
	}
	parts := make([]string, 0, len(endpointSlices))
	for _, s := range endpointSlices {
		parts = append(parts, s.Name+"@"+s.ResourceVersion)
	}
	slices.Sort(parts)
	return string(svc.UID) + "@" + svc.ResourceVersion + " " + strings.Join(parts, " ")
}

// record notes what key's entry was computed from.
func (in serviceInputs) record(key types.NamespacedName, version string) {
	if version == "" {
		delete(in, key)
		return
	}
	in[key] = version
}

// unchanged reports whether key's entry was computed from version.
func (in serviceInputs) unchanged(key types.NamespacedName, version string) bool {
	was, ok := in[key]
	return ok && version != "" && was == version
}
