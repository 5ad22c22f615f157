package exports

import (
	"cmp"
	"maps"
	"net/netip"
	"reflect"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
)

// PeerKey names a peer of the node across its speakers.
type PeerKey struct {
	Instance bgp.InstanceKey
	Name     string
}

// podCIDRSource is the source key of the node's pod CIDRs; Services are keyed by
// namespace/name, which is never empty.
var podCIDRSource = types.NamespacedName{}

// Index is what every peer of the node is sent, kept per source — the node's pod
// CIDRs and each Service — so that a Service or EndpointSlice event recomputes only
// that Service's prefixes and yields only the difference (O(change), not O(Services)).
// intent.Build creates it with the full state; the agent then feeds it single Services
// with SetService. It is not safe for concurrent use.
//
// It is laid out for 100k+ prefixes: a prefix costs one slice entry in its Service's
// contributions and one map entry per peer, and the attribute sets are shared by every
// prefix a rule selects.
type Index struct {
	node  string
	rules map[PeerKey]Rules
	// addrs are the peers' addresses, which the changes name them by.
	addrs map[PeerKey]netip.Addr
	// services are the current contributions of each Service, per peer: the routes
	// Rules gave, an entry per route in a prefixList.
	services map[types.NamespacedName]map[PeerKey]prefixList[*bgp.PathAttributes]
	// contributors are, per peer and prefix, the attributes each source gives it (a
	// Service another Service outranks for the address is left out); what the peer is
	// sent is their merge (union of communities, highest local preference). An entry
	// per route, so under a compact key (bgp.PrefixMap), with one source inline;
	// crowded holds the other sources of a prefix several sources give a peer.
	contributors map[PeerKey]*bgp.PrefixMap[source]
	crowded      map[peerPrefix]map[types.NamespacedName]*bgp.PathAttributes
	// refused says, per Service with addresses no rule allows, which and why (the
	// addresses another Service owns are not in it: see RefusedOf).
	refused map[types.NamespacedName][]Refusal
	// created are the Services' creation times: of several Services claiming one
	// address, the oldest owns it.
	created map[types.NamespacedName]time.Time
	// claims are every Service's addresses, whether a rule selects it or not; a
	// Service announces an address another Service owns for nobody.
	claims addressClaims
	// touched are the Services whose refusal may have changed since TouchedRefusals
	// last ran.
	touched map[types.NamespacedName]struct{}
	// pacer, when set, paces changes of the Services' local endpoint counts (see
	// Pace); held are the Services it held back since Held last ran, with when to set
	// them again.
	pacer *Pacer
	now   func() time.Time
	held  map[types.NamespacedName]time.Duration
}

// source is a contribution to one prefix of one peer: nearly always its only one, and
// the first of several when several Services (or a Service and the pod CIDRs) announce
// the same prefix (Index.crowded holds the others). There is one a route, so src is a
// pointer (compared by the name it points to), shared by all the prefixes one
// SetService call gives: 8 bytes a route instead of a 32-byte name, and a source takes
// 16 bytes.
type source struct {
	src   *types.NamespacedName
	attrs *bgp.PathAttributes
}

// peerPrefix is one peer's prefix.
type peerPrefix struct {
	p      PeerKey
	prefix netip.Prefix
}

// New returns an empty index for the node named node (whose endpoints count as local).
func New(node string) *Index {
	return &Index{
		node:         node,
		rules:        map[PeerKey]Rules{},
		addrs:        map[PeerKey]netip.Addr{},
		services:     map[types.NamespacedName]map[PeerKey]prefixList[*bgp.PathAttributes]{},
		contributors: map[PeerKey]*bgp.PrefixMap[source]{},
		crowded:      map[peerPrefix]map[types.NamespacedName]*bgp.PathAttributes{},
		refused:      map[types.NamespacedName][]Refusal{},
		created:      map[types.NamespacedName]time.Time{},
		claims:       newAddressClaims(),
		touched:      map[types.NamespacedName]struct{}{},
		held:         map[types.NamespacedName]time.Duration{},
	}
}

// Pace makes the index pace the changes of each Service's local endpoint count with p
// (which outlives the index, so that a full build continues where the last index left
// off), reading the time from now. A change p holds back that would change what a peer
// is sent is left out, and the Service is listed by Held.
func (x *Index) Pace(p *Pacer, now func() time.Time) {
	x.pacer, x.now = p, now
}

// Held returns, and forgets, the Services whose latest endpoint count was held back
// since the last call, each with how long until SetService takes it.
func (x *Index) Held() map[types.NamespacedName]time.Duration {
	out := x.held
	x.held = map[types.NamespacedName]time.Duration{}
	return out
}

// AddPeer registers a peer at addr with its pod CIDR paths and the rules that decide
// what each Service gives it. Services set afterwards are matched against the rules.
func (x *Index) AddPeer(p PeerKey, addr netip.Addr, pods []bgp.Path, rules Rules) {
	x.rules[p] = rules
	x.addrs[p] = addr
	x.contributors[p] = &bgp.PrefixMap[source]{}
	maps.DeleteFunc(x.crowded, func(at peerPrefix, _ map[types.NamespacedName]*bgp.PathAttributes) bool { return at.p == p })
	merged := map[netip.Prefix]bgp.PathAttributes{}
	for _, path := range pods {
		merged[path.Prefix] = merged[path.Prefix].Merge(path.Attributes)
	}
	for prefix, attrs := range merged {
		x.contribute(p, prefix, &podCIDRSource, &attrs)
	}
}

// SetService replaces what one Service contributes (svc nil: it was deleted) and
// returns the resulting changes of the peers' exports, by instance, sorted by peer
// and prefix. slices are the Service's EndpointSlices.
//
// A Service's contribution to a prefix is kept in its own entry always, and among the
// prefix's sources only while no other Service owns the address (see addressClaims; a
// source of the prefix is re-decided for what changed, from the Service's new entry):
// merging a prefix then never visits outranked claimants, however many there are.
// When an address's owner changes, its claimants' contributions are moved in or out.
func (x *Index) SetService(key types.NamespacedName, svc *corev1.Service, slices []discoveryv1.EndpointSlice) bgp.ExportChanges {
	return x.setService(key, svc, slices, true)
}

// LoadService sets a Service as SetService does, without working out the changes of
// the peers' exports: a full build (intent.Build) sets every Service, then reads the
// whole exports (Fill). The changes were most of a Service's cost there: the merge of
// every prefix before and after, and the sort.
func (x *Index) LoadService(key types.NamespacedName, svc *corev1.Service, slices []discoveryv1.EndpointSlice) {
	x.setService(key, svc, slices, false)
}

// setService is SetService, which returns the changes only when diff is set.
func (x *Index) setService(key types.NamespacedName, svc *corev1.Service, slices []discoveryv1.EndpointSlice, diff bool) bgp.ExportChanges {
	var now map[PeerKey][]Route
	var refused []Refusal
	if svc != nil {
		now, refused = x.serviceExports(key, svc, slices)
	} else if x.pacer != nil {
		x.pacer.Forget(key)
	}
	old := x.services[key]
	// before are the peers' prefixes whose export may change, each with what the peer
	// was sent for it (nil: nothing).
	peers := unionKeys(old, now)
	routes := 0
	for _, p := range peers {
		routes += old[p].len() + len(now[p])
	}
	claims, oldClaims := claimsOf(svc), x.claims.of(key)
	created, known := x.created[key]
	renew := svc != nil && known && !created.Equal(svc.CreationTimestamp.Time)
	changed := changedClaims(oldClaims, claims)
	if renew {
		changed = unionKeys(oldClaims.rank, claims.rank)
	}
	// A Service's changed claims are mostly its routes' addresses: the larger of the
	// two, not their sum.
	before := make(map[peerPrefix]*bgp.PathAttributes, max(routes, len(changed)*len(x.rules)))
	nowByPrefix := make(map[PeerKey]map[netip.Prefix]*bgp.PathAttributes, len(peers))
	for _, p := range peers {
		was, is := make(map[netip.Prefix]*bgp.PathAttributes, old[p].len()), byPrefix(now[p])
		maps.Insert(was, old[p].all())
		nowByPrefix[p] = is
		for _, prefix := range unionKeys(was, is) {
			if w, i := was[prefix], is[prefix]; w != nil && i != nil && reflect.DeepEqual(*w, *i) {
				continue
			}
			before[peerPrefix{p, prefix}] = nil
		}
	}
	for _, addr := range changed {
		prefix := netip.PrefixFrom(addr, addr.BitLen())
		for p := range x.rules {
			before[peerPrefix{p, prefix}] = nil
		}
	}
	if diff {
		for a := range before {
			before[a], _ = x.mergedRef(a.p, a.prefix)
		}
	}

	if svc != nil {
		x.created[key] = svc.CreationTimestamp.Time
	}
	if len(now) == 0 {
		delete(x.services, key)
	} else {
		kept := make(map[PeerKey]prefixList[*bgp.PathAttributes], len(now))
		for p, routes := range now {
			kept[p] = prefixListOf(routes, Route.entry)
		}
		x.services[key] = kept
	}
	x.touched[key] = struct{}{}
	// The claims change first: whether a source is among a prefix's sources depends on
	// who owns the address. The Service's own prefixes are all in before; the other
	// claimants of an address whose owner changed are re-decided after them.
	ownerChanged := x.claims.set(key, oldClaims, claims, renew, x.older)
	self := &key
	for a := range before {
		rank, claimed := claims.rank[a.prefix.Addr()]
		x.sync(self, a, nowByPrefix[a.p][a.prefix], rank, claimed)
	}
	for _, addr := range ownerChanged {
		prefix := netip.PrefixFrom(addr, addr.BitLen())
		for _, other := range x.claims.claimants(addr) {
			x.touched[other] = struct{}{}
			if other == key {
				continue // its own prefixes are all in before: synced above
			}
			o := other
			rank, claimed := x.claims.rankOf(other, addr)
			for p := range x.rules {
				x.sync(&o, peerPrefix{p, prefix}, x.contribution(other, p, prefix), rank, claimed)
			}
		}
	}

	if svc == nil {
		delete(x.created, key)
	}
	if len(refused) == 0 {
		delete(x.refused, key)
	} else {
		x.refused[key] = refused
	}
	if !diff {
		return nil
	}
	// A Service's own prefixes are nearly all set (it is there) or all removed (it was
	// deleted): a peer's list of those is made as long as its entries in before.
	entries := map[PeerKey]int{}
	for a := range before {
		entries[a.p]++
	}
	changes := map[PeerKey]*bgp.ExportChange{}
	for a, was := range before {
		after, has := x.mergedRef(a.p, a.prefix)
		ch := changes[a.p]
		if ch == nil {
			ch = &bgp.ExportChange{Peer: x.addrs[a.p]}
		}
		switch {
		case was != nil && !has:
			if ch.Remove == nil && svc == nil {
				ch.Remove = make([]netip.Prefix, 0, entries[a.p])
			}
			ch.Remove = append(ch.Remove, a.prefix)
		case has && (was == nil || (was != after && !reflect.DeepEqual(*was, *after))):
			if ch.Set == nil && svc != nil {
				ch.Set = make([]bgp.Path, 0, entries[a.p])
			}
			ch.Set = append(ch.Set, bgp.Path{Prefix: a.prefix, Attributes: *after})
		default:
			continue
		}
		changes[a.p] = ch
	}
	return sortedChanges(changes)
}

// sync re-decides whether src, whose claim on the address of a host prefix has rank
// (claimed: it has one), is among the sources of a peer's prefix, giving it attrs
// (nil: nothing).
func (x *Index) sync(src *types.NamespacedName, at peerPrefix, attrs *bgp.PathAttributes, rank claimRank, claimed bool) {
	if !at.prefix.IsSingleIP() {
		// An aggregate of Service addresses (docs/advertisements.md) is no one
		// address: no claim decides it, and as the least specific route to its
		// addresses it takes no owner's traffic from the owner's host route.
		if attrs == nil {
			x.withdraw(at.p, at.prefix, *src)
		} else {
			x.contribute(at.p, at.prefix, src, attrs)
		}
		return
	}
	if _, outranked := x.claims.outranked(*src, rank, at.prefix.Addr()); attrs == nil || !claimed || outranked {
		x.withdraw(at.p, at.prefix, *src)
	} else {
		x.contribute(at.p, at.prefix, src, attrs)
	}
}

// contribution is what src's entry gives the peer's prefix, nil when nothing.
func (x *Index) contribution(src types.NamespacedName, p PeerKey, prefix netip.Prefix) *bgp.PathAttributes {
	attrs, _ := x.services[src][p].get(prefix)
	return attrs
}

// Export returns a copy of what the peer is sent.
func (x *Index) Export(p PeerKey) map[netip.Prefix]bgp.PathAttributes {
	out := make(map[netip.Prefix]bgp.PathAttributes, x.contributors[p].Len())
	for prefix := range x.contributors[p].All() {
		if attrs, ok := x.merged(p, prefix); ok {
			out[prefix] = attrs
		}
	}
	return out
}

// Fill sets, in d, the export of every peer the index holds (d holds them all).
func (x *Index) Fill(d bgp.Desired) {
	for p := range x.rules {
		di := d.Instances[p.Instance]
		dp := di.Peers[p.Name]
		dp.Export = x.Export(p)
		di.Peers[p.Name] = dp
	}
}

// serviceExports is what svc contributes to each peer whose rules give it something,
// and its addresses that some rule selects but no rule allows (an address another
// peer's rules announce is not refused). With a pacer, a change of the local endpoint
// count that it holds back and that would change what a peer is sent is left out
// (the last count stays) and key is listed in held.
func (x *Index) serviceExports(key types.NamespacedName, svc *corev1.Service, endpointSlices []discoveryv1.EndpointSlice) (map[PeerKey][]Route, []Refusal) {
	lbls := kbgpv1.ServiceLabels(svc.ObjectMeta)
	want := LocalEndpoints(endpointSlices, x.node)
	if x.pacer == nil {
		return x.routesWith(svc, lbls, want)
	}
	now := x.now()
	count, wait := x.pacer.Pace(key, want, now)
	out, refused := x.routesWith(svc, lbls, count)
	if wait > 0 {
		wanted, wantRefused := x.routesWith(svc, lbls, want)
		if reflect.DeepEqual(out, wanted) {
			// The count decides nothing the peers are sent (no weighted ECMP).
			return wanted, wantRefused
		}
		x.held[key] = wait
	}
	x.pacer.Sent(key, count, now)
	return out, refused
}

// routesWith is what svc, with localEndpoints ready endpoints on the node, contributes
// to each peer (see serviceExports).
func (x *Index) routesWith(svc *corev1.Service, lbls labels.Set, localEndpoints int) (map[PeerKey][]Route, []Refusal) {
	out := map[PeerKey][]Route{}
	var refused []Refusal
	for p, rules := range x.rules {
		routes, no := rules.Routes(svc, lbls, localEndpoints)
		refused = append(refused, no...)
		if len(routes) > 0 {
			out[p] = routes
		}
	}
	if len(refused) == 0 {
		return out, nil
	}
	announced := map[netip.Addr]bool{}
	for _, routes := range out {
		for _, r := range routes {
			announced[r.Prefix.Addr()] = true
		}
	}
	return out, slices.DeleteFunc(refused, func(r Refusal) bool { return announced[r.Addr] })
}

// Refused lists, as failed resources, the Services whose addresses some advertisement
// selects but does not allow (see allowedRanges) or another Service owns (see
// addressClaims), sorted by Service.
func (x *Index) Refused() []kbgpv1.FailedResource {
	keys := slices.Collect(maps.Keys(x.refused))
	for _, others := range x.claims.others {
		for src := range others {
			if _, static := x.refused[src]; !static {
				keys = append(keys, src)
			}
		}
	}
	slices.SortFunc(keys, compareNamespacedName)
	out := make([]kbgpv1.FailedResource, 0, len(keys))
	for _, key := range slices.Compact(keys) {
		if msg := x.RefusedOf(key); msg != "" {
			out = append(out, kbgpv1.FailedResource{Kind: "Service", Name: key.String(), Message: msg})
		}
	}
	return out
}

// RefusedOf is the refusal message of one Service, "" when it has none. An address
// another Service owns is refused only where some peer's rules would announce it.
func (x *Index) RefusedOf(key types.NamespacedName) string {
	refused := x.refused[key]
	var given map[netip.Prefix]bool
	for host, rank := range x.claims.bySrc[key].all() {
		addr := host.Addr()
		owner, no := x.claims.outranked(key, rank, addr)
		if !no {
			continue
		}
		if given == nil {
			given = map[netip.Prefix]bool{}
			for _, cs := range x.services[key] {
				for prefix := range cs.all() {
					given[prefix] = true
				}
			}
		}
		if given[host] {
			refused = append(slices.Clip(refused), Refusal{Addr: addr, Reason: outrankedMessage(claimKinds[rank], addr, owner)})
		}
	}
	if len(refused) == 0 {
		return ""
	}
	return refusalMessage(refused)
}

// ClaimantsIn are the Services with an address in one of prefixes, sorted: after
// Reserved.Set, the Services to set again.
func (x *Index) ClaimantsIn(prefixes []netip.Prefix) []types.NamespacedName {
	return x.claims.claimantsIn(prefixes)
}

// TouchedRefusals returns, and forgets, the Services whose RefusedOf may have changed
// since the last call: each one SetService set, and the claimants of an address whose
// owner changed.
func (x *Index) TouchedRefusals() []types.NamespacedName {
	out := slices.SortedFunc(maps.Keys(x.touched), compareNamespacedName)
	clear(x.touched)
	return out
}

func compareNamespacedName(a, b types.NamespacedName) int {
	return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
}

// contribute sets what src gives prefix for the peer.
func (x *Index) contribute(p PeerKey, prefix netip.Prefix, src *types.NamespacedName, attrs *bgp.PathAttributes) {
	m := x.contributors[p]
	s, ok := m.Get(prefix)
	switch {
	case !ok || *s.src == *src:
		m.Set(prefix, source{src: src, attrs: attrs})
	default:
		at := peerPrefix{p, prefix}
		if x.crowded[at] == nil {
			x.crowded[at] = map[types.NamespacedName]*bgp.PathAttributes{}
		}
		x.crowded[at][*src] = attrs
	}
}

// withdraw removes what src gives prefix for the peer; another source, if any, moves
// inline.
func (x *Index) withdraw(p PeerKey, prefix netip.Prefix, src types.NamespacedName) {
	m := x.contributors[p]
	s, ok := m.Get(prefix)
	at := peerPrefix{p, prefix}
	more := x.crowded[at]
	switch {
	case !ok:
		return
	case *s.src != src:
		delete(more, src)
	case len(more) == 0:
		m.Delete(prefix)
	default:
		for k, a := range more {
			m.Set(prefix, source{&k, a})
			delete(more, k)
			break
		}
	}
	if more != nil && len(more) == 0 {
		delete(x.crowded, at)
	}
}

// merged is what the peer is sent for prefix, if anything (see mergedRef).
func (x *Index) merged(p PeerKey, prefix netip.Prefix) (bgp.PathAttributes, bool) {
	if a, ok := x.mergedRef(p, prefix); ok {
		return *a, true
	}
	return bgp.PathAttributes{}, false
}

// mergedRef is what the peer is sent for prefix, if anything: the merge (union of
// communities, highest local preference; commutative, so map order does not matter)
// of its sources. A prefix of one source, nearly every one, is given its source's
// attributes, shared and never changed, not a copy. The node's pod CIDRs own their prefixes alone; the Services among
// the sources are those no other Service outranks (see SetService), all of the owner's
// namespace, so a Service announcing someone else's address can neither announce it
// nor add a blackhole community, no-export or a local preference to it.
func (x *Index) mergedRef(p PeerKey, prefix netip.Prefix) (*bgp.PathAttributes, bool) {
	s, ok := x.contributors[p].Get(prefix)
	if !ok {
		return nil, false
	}
	var more map[types.NamespacedName]*bgp.PathAttributes
	if len(x.crowded) > 0 && *s.src != podCIDRSource {
		more = x.crowded[peerPrefix{p, prefix}]
	}
	if a, pods := more[podCIDRSource]; pods {
		return a, true
	}
	if len(more) == 0 {
		return s.attrs, true
	}
	out := *s.attrs
	for _, a := range more {
		out = out.Merge(*a)
	}
	return &out, true
}

// older reports whether source a was created before b (ties by namespace/name).
func (x *Index) older(a, b types.NamespacedName) bool {
	ta, tb := x.created[a], x.created[b]
	if !ta.Equal(tb) {
		return ta.Before(tb)
	}
	return compareNamespacedName(a, b) < 0
}

// byPrefix indexes contributions by prefix, for the comparison of a Service's old
// and new contributions.
func byPrefix(cs []Route) map[netip.Prefix]*bgp.PathAttributes {
	out := make(map[netip.Prefix]*bgp.PathAttributes, len(cs))
	for _, c := range cs {
		out[c.Prefix] = c.Attributes
	}
	return out
}

func unionKeys[K comparable, A, B any](a map[K]A, b map[K]B) []K {
	out := slices.Collect(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	return out
}

func sortedChanges(changes map[PeerKey]*bgp.ExportChange) bgp.ExportChanges {
	out := bgp.ExportChanges{}
	for p, ch := range changes {
		slices.SortFunc(ch.Set, func(a, b bgp.Path) int { return bgp.ComparePrefix(a.Prefix, b.Prefix) })
		slices.SortFunc(ch.Remove, bgp.ComparePrefix)
		out[p.Instance] = append(out[p.Instance], *ch)
	}
	for _, chs := range out {
		slices.SortFunc(chs, func(a, b bgp.ExportChange) int { return a.Peer.Compare(b.Peer) })
	}
	return out
}
