package intent

import (
	"cmp"
	"maps"
	"net/netip"
	"reflect"
	"slices"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
)

// peerKey names a peer of the node across its speakers.
type peerKey struct {
	instance bgp.InstanceKey
	name     string
}

// serviceRule is one Service entry of a BGPAdvertisement that one family of a peer
// selects, with its Service selector compiled and its attributes converted for that
// peer (local preference only for iBGP).
type serviceRule struct {
	family   bgp.Family
	selector labels.Selector
	entry    kbgpv1.Advertisement
	attrs    bgp.PathAttributes
}

// podCIDRSource is the source key of the node's pod CIDRs; Services are keyed by
// namespace/name, which is never empty.
var podCIDRSource = types.NamespacedName{}

// ExportIndex is what every peer of the node is sent, kept per source — the node's
// pod CIDRs and each Service — so that a Service or EndpointSlice event recomputes
// only that Service's prefixes and yields only the difference (O(change), not
// O(Services)). Build creates it with the full state; the agent then feeds it single
// Services with SetService. It is not safe for concurrent use.
type ExportIndex struct {
	node  string
	rules map[peerKey][]serviceRule
	// services are the current contributions of each Service, per peer.
	services map[types.NamespacedName]map[peerKey]map[netip.Prefix]bgp.PathAttributes
	// contributors are, per peer and prefix, the attributes each source gives it; what
	// the peer is sent is their merge (union of communities, highest local preference).
	contributors map[peerKey]map[netip.Prefix]map[types.NamespacedName]bgp.PathAttributes
}

func newExportIndex(node string) *ExportIndex {
	return &ExportIndex{
		node:         node,
		rules:        map[peerKey][]serviceRule{},
		services:     map[types.NamespacedName]map[peerKey]map[netip.Prefix]bgp.PathAttributes{},
		contributors: map[peerKey]map[netip.Prefix]map[types.NamespacedName]bgp.PathAttributes{},
	}
}

// addPeer registers a peer with its pod CIDR paths and the Service rules its families
// select. Services added afterwards are matched against the rules.
func (x *ExportIndex) addPeer(p peerKey, pods []bgp.Path, rules []serviceRule) {
	x.rules[p] = rules
	x.contributors[p] = map[netip.Prefix]map[types.NamespacedName]bgp.PathAttributes{}
	for _, path := range pods {
		x.contribute(p, path.Prefix, podCIDRSource, mergeAttributes(x.contributors[p][path.Prefix][podCIDRSource], path.Attributes))
	}
}

// SetService replaces what one Service contributes (svc nil: it was deleted) and
// returns the resulting changes of the peers' exports, sorted by instance, peer and
// prefix. slices are the Service's EndpointSlices.
func (x *ExportIndex) SetService(key types.NamespacedName, svc *corev1.Service, slices []discoveryv1.EndpointSlice) []bgp.ExportChange {
	var now map[peerKey]map[netip.Prefix]bgp.PathAttributes
	if svc != nil {
		now = x.serviceExports(svc, slices)
	}
	old := x.services[key]
	if reflect.DeepEqual(old, now) {
		return nil
	}
	changes := map[peerKey]*bgp.ExportChange{}
	for _, p := range unionKeys(old, now) {
		for _, prefix := range unionKeys(old[p], now[p]) {
			before, had := x.merged(p, prefix)
			attrs, keep := now[p][prefix]
			if keep {
				x.contribute(p, prefix, key, attrs)
			} else {
				x.withdraw(p, prefix, key)
			}
			after, has := x.merged(p, prefix)
			ch := changes[p]
			if ch == nil {
				ch = &bgp.ExportChange{Instance: p.instance, Peer: p.name}
			}
			switch {
			case had && !has:
				ch.Remove = append(ch.Remove, prefix)
			case has && (!had || !reflect.DeepEqual(before, after)):
				ch.Set = append(ch.Set, bgp.Path{Prefix: prefix, Attributes: after})
			default:
				continue
			}
			changes[p] = ch
		}
	}
	if len(now) == 0 {
		delete(x.services, key)
	} else {
		x.services[key] = now
	}
	return sortedChanges(changes)
}

// Export returns a copy of what the peer is sent.
func (x *ExportIndex) export(p peerKey) map[netip.Prefix]bgp.PathAttributes {
	out := make(map[netip.Prefix]bgp.PathAttributes, len(x.contributors[p]))
	for prefix := range x.contributors[p] {
		out[prefix], _ = x.merged(p, prefix)
	}
	return out
}

// serviceExports is what svc contributes to each peer whose rules select it.
func (x *ExportIndex) serviceExports(svc *corev1.Service, slices []discoveryv1.EndpointSlice) map[peerKey]map[netip.Prefix]bgp.PathAttributes {
	out := map[peerKey]map[netip.Prefix]bgp.PathAttributes{}
	lbls := serviceLabels(svc)
	local := hasLocalEndpoint(slices, x.node)
	for p, rules := range x.rules {
		for _, r := range rules {
			if !r.selector.Matches(lbls) {
				continue
			}
			for _, prefix := range serviceHostRoutes(svc, r.entry, r.family, local) {
				if out[p] == nil {
					out[p] = map[netip.Prefix]bgp.PathAttributes{}
				}
				out[p][prefix] = mergeAttributes(out[p][prefix], r.attrs)
			}
		}
	}
	return out
}

func (x *ExportIndex) contribute(p peerKey, prefix netip.Prefix, src types.NamespacedName, attrs bgp.PathAttributes) {
	byPrefix := x.contributors[p]
	if byPrefix[prefix] == nil {
		byPrefix[prefix] = map[types.NamespacedName]bgp.PathAttributes{}
	}
	byPrefix[prefix][src] = attrs
}

func (x *ExportIndex) withdraw(p peerKey, prefix netip.Prefix, src types.NamespacedName) {
	delete(x.contributors[p][prefix], src)
	if len(x.contributors[p][prefix]) == 0 {
		delete(x.contributors[p], prefix)
	}
}

// merged is what the peer is sent for prefix, if anything: the merge of every
// source's attributes (merging is commutative, so map order does not matter).
func (x *ExportIndex) merged(p peerKey, prefix netip.Prefix) (bgp.PathAttributes, bool) {
	srcs, ok := x.contributors[p][prefix]
	if !ok {
		return bgp.PathAttributes{}, false
	}
	var out bgp.PathAttributes
	for _, a := range srcs {
		out = mergeAttributes(out, a)
	}
	return out, true
}

func unionKeys[K comparable, V any](a, b map[K]V) []K {
	out := slices.Collect(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	return out
}

func sortedChanges(changes map[peerKey]*bgp.ExportChange) []bgp.ExportChange {
	out := make([]bgp.ExportChange, 0, len(changes))
	for _, ch := range changes {
		slices.SortFunc(ch.Set, func(a, b bgp.Path) int { return comparePrefix(a.Prefix, b.Prefix) })
		slices.SortFunc(ch.Remove, comparePrefix)
		out = append(out, *ch)
	}
	slices.SortFunc(out, func(a, b bgp.ExportChange) int {
		return cmp.Or(a.Instance.Compare(b.Instance), cmp.Compare(a.Peer, b.Peer))
	})
	return out
}

func comparePrefix(a, b netip.Prefix) int {
	return cmp.Or(a.Addr().Compare(b.Addr()), cmp.Compare(a.Bits(), b.Bits()))
}
