package exports

import (
	"fmt"
	"maps"
	"net/netip"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
)

// claimRank orders the ways a Service claims an address, strongest first: the API
// server allocates cluster IPs, kbgp's IPAM load-balancer IPs (its status is written by
// whoever may write Service status, the operator), and external IPs are written by
// whoever may write the Service.
type claimRank uint8

const (
	claimClusterIP claimRank = iota
	claimLoadBalancerIP
	claimExternalIP
)

var claimKinds = [...]kbgpv1.ServiceAddressType{kbgpv1.ServiceClusterIP, kbgpv1.ServiceLoadBalancerIP, kbgpv1.ServiceExternalIP}

// claim is one Service's strongest claim on one address. There is one per claimed
// address, so src is a pointer (compared by the name it points to) that all the claims
// of one set call share: 8 bytes an address instead of a 32-byte name.
type claim struct {
	src  *types.NamespacedName
	rank claimRank
}

// addrClaim is a claim of a Service: which address, how.
type addrClaim struct {
	addr netip.Addr
	rank claimRank
}

// entry is ac as an entry of addressClaims.bySrc.
func (ac addrClaim) entry() (netip.Prefix, claimRank) {
	return hostPrefix(ac.addr), ac.rank
}

// addressClaims are every Service's claims on addresses, cluster-wide, so that an
// address has one owner whatever the Services in other namespaces write (CVE-2020-8554,
// carried over BGP): the Service with the strongest claim, the oldest of those, ties by
// namespace/name. Services of the owner's namespace may announce it too, except a
// cluster IP, which only its own Service announces: another Service's external or
// load-balancer IP equal to it would take the traffic of the API server, DNS, ….
//
// The owner is kept per address, so a claim costs O(1) however many Services claim
// the same address; only the owner's leaving scans the others. An address one Service
// claims, nearly every address, costs one map entry of 16 bytes, keyed by its host
// prefix in a bgp.PrefixMap (8 bytes for an IPv4 address, where a netip.Addr takes
// 24); the other claims on a contested address are kept aside, so that listing the
// contested addresses does not walk every claim.
type addressClaims struct {
	// owners are the owning claim of each claimed address.
	owners *bgp.PrefixMap[claim]
	// others are, of each address more than one Service claims, the claims that do
	// not own it.
	others map[netip.Addr]map[types.NamespacedName]claimRank
	// bySrc are each Service's claims, keyed by host prefix (5 bytes an IPv4
	// address in a prefixList).
	bySrc map[types.NamespacedName]prefixList[claimRank]
}

// hostPrefix is addr's key in addressClaims.owners.
func hostPrefix(addr netip.Addr) netip.Prefix {
	return netip.PrefixFrom(addr, addr.BitLen())
}

func newAddressClaims() addressClaims {
	return addressClaims{
		owners: &bgp.PrefixMap[claim]{},
		others: map[netip.Addr]map[types.NamespacedName]claimRank{},
		bySrc:  map[types.NamespacedName]prefixList[claimRank]{},
	}
}

// of are the claims src holds.
func (c addressClaims) of(src types.NamespacedName) []addrClaim {
	l := c.bySrc[src]
	out := make([]addrClaim, 0, l.len())
	for host, rank := range l.all() {
		out = append(out, addrClaim{host.Addr(), rank})
	}
	return out
}

// claimsOf are the addresses svc claims, each once with its strongest claim (none when
// svc is nil).
func claimsOf(svc *corev1.Service) []addrClaim {
	if svc == nil {
		return nil
	}
	var out []addrClaim
	seen := map[netip.Addr]struct{}{}
	for rank, kind := range claimKinds {
		for _, a := range ServiceAddresses(svc, kind) {
			if _, dup := seen[a]; !dup {
				seen[a] = struct{}{}
				out = append(out, addrClaim{addr: a, rank: claimRank(rank)})
			}
		}
	}
	return out
}

// claimSetOf indexes claims by address (the last claim of an address wins; a
// Service's own claims name each address once), so that comparing two claim lists
// costs a lookup per claim, not a scan: a Service of thousands of addresses.
func claimSetOf(claims []addrClaim) map[netip.Addr]claimRank {
	out := make(map[netip.Addr]claimRank, len(claims))
	for _, c := range claims {
		out[c.addr] = c.rank
	}
	return out
}

// holds reports whether the indexed claims have c, address and rank.
func holds(set map[netip.Addr]claimRank, c addrClaim) bool {
	rank, ok := set[c.addr]
	return ok && rank == c.rank
}

// changedClaims are the addresses claimed differently in old and now, each once.
func changedClaims(old, now []addrClaim) []netip.Addr {
	oldSet, nowSet := claimSetOf(old), claimSetOf(now)
	var out []netip.Addr
	listed := map[netip.Addr]struct{}{}
	add := func(a netip.Addr) {
		if _, dup := listed[a]; !dup {
			listed[a] = struct{}{}
			out = append(out, a)
		}
	}
	for _, o := range old {
		if !holds(nowSet, o) {
			add(o.addr)
		}
	}
	for _, n := range now {
		if !holds(oldSet, n) {
			add(n.addr)
		}
	}
	return out
}

// set replaces the claims of src, whose creation time older already knows, and
// returns the addresses whose owner changed. renew re-adds claims that did not
// change (src was re-created under the same name).
func (c addressClaims) set(src types.NamespacedName, now []addrClaim, renew bool, older func(a, b types.NamespacedName) bool) []netip.Addr {
	old := c.of(src)
	oldSet, nowSet := claimSetOf(old), claimSetOf(now)
	ref := &src
	var changed []netip.Addr
	listed := map[netip.Addr]struct{}{}
	for _, o := range old {
		if renew || !holds(nowSet, o) {
			if c.remove(src, o.addr, older) {
				changed = append(changed, o.addr)
				listed[o.addr] = struct{}{}
			}
		}
	}
	for _, n := range now {
		if (renew || !holds(oldSet, n)) && c.add(ref, n, older) {
			if _, dup := listed[n.addr]; !dup {
				changed = append(changed, n.addr)
				listed[n.addr] = struct{}{}
			}
		}
	}
	if len(now) == 0 {
		delete(c.bySrc, src)
	} else {
		c.bySrc[src] = prefixListOf(now, addrClaim.entry)
	}
	return changed
}

// add records src's claim and reports whether it became the owner.
func (c addressClaims) add(src *types.NamespacedName, ac addrClaim, older func(a, b types.NamespacedName) bool) bool {
	cl := claim{src: src, rank: ac.rank}
	key := hostPrefix(ac.addr)
	owner, ok := c.owners.Get(key)
	if !ok {
		c.owners.Set(key, cl)
		return true
	}
	others := c.others[ac.addr]
	if others == nil {
		others = map[types.NamespacedName]claimRank{}
		c.others[ac.addr] = others
	}
	if !stronger(cl, owner, older) {
		others[*src] = ac.rank
		return false
	}
	others[*owner.src] = owner.rank
	c.owners.Set(key, cl)
	return true
}

// remove drops src's claim on addr and reports whether the owner changed.
func (c addressClaims) remove(src types.NamespacedName, addr netip.Addr, older func(a, b types.NamespacedName) bool) bool {
	key := hostPrefix(addr)
	owner, ok := c.owners.Get(key)
	others := c.others[addr]
	switch {
	case !ok:
		return false
	case *owner.src != src:
		c.forget(addr, src)
		return false
	case len(others) == 0:
		c.owners.Delete(key)
		return true
	}
	first := true
	for m, rank := range others {
		if cl := (claim{&m, rank}); first || stronger(cl, owner, older) {
			owner, first = cl, false
		}
	}
	c.forget(addr, *owner.src)
	c.owners.Set(key, owner)
	return true
}

// forget drops src's claim on addr from the claims that do not own it.
func (c addressClaims) forget(addr netip.Addr, src types.NamespacedName) {
	delete(c.others[addr], src)
	if len(c.others[addr]) == 0 {
		delete(c.others, addr)
	}
}

// stronger reports whether claim a outranks b.
func stronger(a, b claim, older func(a, b types.NamespacedName) bool) bool {
	return a.rank < b.rank || (a.rank == b.rank && older(*a.src, *b.src))
}

// claimants are the Services claiming addr.
func (c addressClaims) claimants(addr netip.Addr) []types.NamespacedName {
	owner, ok := c.owners.Get(hostPrefix(addr))
	if !ok {
		return nil
	}
	return append(slices.Collect(maps.Keys(c.others[addr])), *owner.src)
}

// claimantsIn are the Services claiming an address in one of prefixes, sorted. A host
// prefix (a Node's address) costs one lookup; a wider one (a pod CIDR, a Service CIDR,
// which change when a Node comes or goes) one pass over the claimed addresses.
func (c addressClaims) claimantsIn(prefixes []netip.Prefix) []types.NamespacedName {
	var out []types.NamespacedName
	var wide []netip.Prefix
	for _, p := range prefixes {
		if p.IsSingleIP() {
			out = append(out, c.claimants(p.Addr())...)
		} else {
			wide = append(wide, p)
		}
	}
	if len(wide) > 0 {
		for host := range c.owners.All() {
			if addr := host.Addr(); slices.ContainsFunc(wide, func(p netip.Prefix) bool { return p.Contains(addr) }) {
				out = append(out, c.claimants(addr)...)
			}
		}
	}
	slices.SortFunc(out, compareNamespacedName)
	return slices.Compact(out)
}

// outranked returns the claim that keeps src from announcing addr, if one does: the
// owner's, when it is of another namespace or a cluster IP of another Service. A
// cluster IP is never outranked: the API server gives each to one Service.
// mine is src's claim on addr.
func (c addressClaims) outranked(src types.NamespacedName, mine claimRank, addr netip.Addr) (claim, bool) {
	if mine == claimClusterIP {
		return claim{}, false
	}
	o, ok := c.owners.Get(hostPrefix(addr))
	if !ok {
		// Not reached: mine is a claim on addr. No claim, no owner to outrank src.
		return claim{}, false
	}
	if *o.src == src || (o.rank != claimClusterIP && o.src.Namespace == src.Namespace) {
		return claim{}, false
	}
	return o, true
}

// rankOf is src's claim on addr, if it has one.
func (c addressClaims) rankOf(src types.NamespacedName, addr netip.Addr) (claimRank, bool) {
	return c.bySrc[src].get(hostPrefix(addr))
}

// outrankedMessage says why a Service does not announce addr, which owner holds.
func outrankedMessage(kind kbgpv1.ServiceAddressType, addr netip.Addr, owner claim) string {
	msg := fmt.Sprintf("%s %s is the %s of Service %s", kind, addr, claimKinds[owner.rank], *owner.src)
	if owner.rank != claimClusterIP {
		msg += " of another namespace"
	}
	return msg
}
