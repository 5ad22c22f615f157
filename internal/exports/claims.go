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
func (c addressClaims) of(src types.NamespacedName) serviceClaims {
	l := c.bySrc[src]
	out := serviceClaims{list: make([]addrClaim, 0, l.len()), rank: make(map[netip.Addr]claimRank, l.len())}
	for host, rank := range l.all() {
		out.list = append(out.list, addrClaim{host.Addr(), rank})
		out.rank[host.Addr()] = rank
	}
	return out
}

// serviceClaims are the claims of one Service, each address once with its strongest
// claim, and the same indexed by address, so that comparing two Services' claims costs
// a lookup per claim, not a scan: a Service of thousands of addresses.
type serviceClaims struct {
	list []addrClaim
	rank map[netip.Addr]claimRank
}

// claimsOf are the claims of svc (none when svc is nil).
func claimsOf(svc *corev1.Service) serviceClaims {
	if svc == nil {
		return serviceClaims{}
	}
	// Room for every address the Service lists, of every kind.
	n := len(svc.Spec.ClusterIPs) + len(svc.Spec.ExternalIPs) + len(svc.Status.LoadBalancer.Ingress) + 1
	out := serviceClaims{list: make([]addrClaim, 0, n), rank: make(map[netip.Addr]claimRank, n)}
	for rank, kind := range claimKinds {
		for _, a := range ServiceAddresses(svc, kind) {
			if _, dup := out.rank[a]; !dup {
				out.rank[a] = claimRank(rank)
				out.list = append(out.list, addrClaim{addr: a, rank: claimRank(rank)})
			}
		}
	}
	return out
}

// holds reports whether the claims have c, address and rank.
func (s serviceClaims) holds(c addrClaim) bool {
	rank, ok := s.rank[c.addr]
	return ok && rank == c.rank
}

// changedClaims are the addresses claimed differently in old and now, each once: an
// address now claims that old claims otherwise is listed from old.
func changedClaims(old, now serviceClaims) []netip.Addr {
	var out []netip.Addr
	for _, o := range old.list {
		if !now.holds(o) {
			out = append(out, o.addr)
		}
	}
	for _, n := range now.list {
		if _, was := old.rank[n.addr]; !was {
			out = append(out, n.addr)
		}
	}
	return out
}

// set replaces the claims of src, old (as of returns them), with now, and returns the
// addresses whose owner changed, each once. older knows src's creation time. renew
// re-adds claims that did not change (src was re-created under the same name).
func (c addressClaims) set(src types.NamespacedName, old, now serviceClaims, renew bool, older func(a, b types.NamespacedName) bool) []netip.Addr {
	ref := &src
	var changed []netip.Addr
	for _, o := range old.list {
		if (renew || !now.holds(o)) && c.remove(src, o.addr, older) {
			changed = append(changed, o.addr)
		}
	}
	removed := len(changed)
	for _, n := range now.list {
		if (renew || !old.holds(n)) && c.add(ref, n, older) {
			changed = append(changed, n.addr)
		}
	}
	if removed > 0 && len(changed) > removed {
		// An address whose owner changed as src's claim left and again as it came
		// back (another rank, or renewed).
		slices.SortFunc(changed, netip.Addr.Compare)
		changed = slices.Compact(changed)
	}
	if len(now.list) == 0 {
		delete(c.bySrc, src)
	} else {
		c.bySrc[src] = prefixListOf(now.list, addrClaim.entry)
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
