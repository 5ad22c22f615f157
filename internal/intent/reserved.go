package intent

import (
	"cmp"
	"fmt"
	"net/netip"
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// ReservedKind is why the cluster keeps an address from Services.
type ReservedKind uint8

const (
	// ReservedNodeAddress is one of a Node's addresses.
	ReservedNodeAddress ReservedKind = iota
	// ReservedPodCIDR is a Node's pod CIDR: every pod IP of the Node is in it.
	ReservedPodCIDR
	// ReservedServiceCIDR is a range the API server allocates cluster IPs from.
	ReservedServiceCIDR
)

// ReservedOwner is the object that reserves prefixes: a Node or a ServiceCIDR.
type ReservedOwner struct {
	Kind, Name string
}

// Reservation is one prefix an owner reserves.
type Reservation struct {
	Prefix netip.Prefix
	Kind   ReservedKind
}

// Reserved are the cluster's own addresses: every Node's addresses and pod CIDRs and
// the Service CIDRs. None of them is ever announced as a Service's external or
// load-balancer IP, whatever the advertisement's prefixes or the pools allow: a /32
// of a Node, a pod or a free cluster IP would take its traffic (CVE-2020-8554,
// carried over BGP). Cluster IPs are not refused here: the API server allocates them,
// and addressClaims gives each to its Service.
//
// It is kept per owner, so that a Node's or a ServiceCIDR's change costs its own
// prefixes, and looked up per address in one map access per prefix length in use (a
// cluster has a handful: host addresses, its pod CIDR size, its Service CIDRs). A nil
// *Reserved reserves nothing. It is not safe for concurrent use.
//
// Every agent holds an entry per Node of the cluster, so a prefix's owners are a
// slice, nearly always of one: with a map per prefix a Node with an address and a pod
// CIDR cost 1,142 bytes, with the slice 491 (BenchmarkReservedNodes).
type Reserved struct {
	byOwner  map[ReservedOwner][]Reservation
	byPrefix map[netip.Prefix][]reservationHolder
	// lengths count, per family (0: IPv4, 1: IPv6) and prefix length, the prefixes in
	// byPrefix, so a lookup tries only the lengths in use.
	lengths [2][129]int
	// version counts the changes, so that what was derived from the set (see
	// aggregates) knows when to derive it again.
	version uint64
}

// reservationHolder is one owner of a reserved prefix, and why it holds it.
type reservationHolder struct {
	owner ReservedOwner
	kind  ReservedKind
}

// NewReserved returns an empty set.
func NewReserved() *Reserved {
	return &Reserved{byOwner: map[ReservedOwner][]Reservation{}, byPrefix: map[netip.Prefix][]reservationHolder{}}
}

// NodeReservations are a Node's addresses, as host prefixes, and its pod CIDRs.
func NodeReservations(node *corev1.Node) []Reservation {
	var out []Reservation
	for _, p := range nodeOwned(node) {
		kind := ReservedPodCIDR
		if p.IsSingleIP() {
			kind = ReservedNodeAddress
		}
		out = append(out, Reservation{Prefix: p, Kind: kind})
	}
	return out
}

// ServiceCIDRReservations are a ServiceCIDR's ranges (spec.cidrs); one that does not
// parse (the API server validates them) reserves nothing.
func ServiceCIDRReservations(cidrs []string) []Reservation {
	var out []Reservation
	for _, c := range cidrs {
		if p, err := netip.ParsePrefix(c); err == nil {
			out = append(out, Reservation{Prefix: p.Masked(), Kind: ReservedServiceCIDR})
		}
	}
	return out
}

// Set replaces what owner reserves (none: it is gone) and returns the prefixes whose
// reservation changed, the ones whose claimants must be re-decided (see
// exports.Index.ClaimantsIn).
func (r *Reserved) Set(owner ReservedOwner, now []Reservation) []netip.Prefix {
	old := r.byOwner[owner]
	var changed []netip.Prefix
	for _, o := range old {
		if !slices.Contains(now, o) {
			r.drop(owner, o.Prefix)
			changed = append(changed, o.Prefix)
		}
	}
	for _, n := range now {
		if !slices.Contains(old, n) {
			r.add(owner, n)
			changed = append(changed, n.Prefix)
		}
	}
	if len(now) == 0 {
		delete(r.byOwner, owner)
	} else {
		r.byOwner[owner] = slices.Clone(now)
	}
	if len(changed) > 0 {
		r.version++
	}
	slices.SortFunc(changed, netip.Prefix.Compare)
	return slices.Compact(changed)
}

// Owners are the names of the owners of one kind ("Node", "ServiceCIDR") that reserve
// something, sorted.
func (r *Reserved) Owners(kind string) []string {
	var out []string
	for o := range r.byOwner {
		if o.Kind == kind {
			out = append(out, o.Name)
		}
	}
	slices.Sort(out)
	return out
}

func (r *Reserved) add(owner ReservedOwner, n Reservation) {
	holders, ok := r.byPrefix[n.Prefix]
	if !ok {
		r.lengths[family(n.Prefix.Addr())][n.Prefix.Bits()]++
	}
	holders = slices.DeleteFunc(holders, func(h reservationHolder) bool { return h.owner == owner })
	r.byPrefix[n.Prefix] = append(holders, reservationHolder{owner: owner, kind: n.Kind})
}

func (r *Reserved) drop(owner ReservedOwner, p netip.Prefix) {
	holders, ok := r.byPrefix[p]
	if !ok {
		return
	}
	holders = slices.DeleteFunc(holders, func(h reservationHolder) bool { return h.owner == owner })
	if len(holders) > 0 {
		r.byPrefix[p] = holders
		return
	}
	delete(r.byPrefix, p)
	r.lengths[family(p.Addr())][p.Bits()]--
}

func family(a netip.Addr) int {
	if a.Is4() {
		return 0
	}
	return 1
}

// reservedBy is the reservation an address is refused for.
type reservedBy struct {
	Reservation
	owner ReservedOwner
}

// lookup returns the reservation that holds addr, if one does: the most specific one,
// of the first owner by kind and name when several reserve the same prefix.
func (r *Reserved) lookup(addr netip.Addr) (reservedBy, bool) {
	if r == nil {
		return reservedBy{}, false
	}
	addr = addr.Unmap()
	lengths := &r.lengths[family(addr)]
	for bits := addr.BitLen(); bits >= 0; bits-- {
		if lengths[bits] == 0 {
			continue
		}
		p := netip.PrefixFrom(addr, bits).Masked()
		holders, ok := r.byPrefix[p]
		if !ok {
			continue
		}
		first := slices.MinFunc(holders, func(a, b reservationHolder) int {
			return cmp.Or(cmp.Compare(a.owner.Kind, b.owner.Kind), cmp.Compare(a.owner.Name, b.owner.Name))
		})
		return reservedBy{Reservation: Reservation{Prefix: p, Kind: first.kind}, owner: first.owner}, true
	}
	return reservedBy{}, false
}

// message says which reserved set the address is in.
func (b reservedBy) message() string {
	switch b.Kind {
	case ReservedNodeAddress:
		return fmt.Sprintf("is an address of Node %s", b.owner.Name)
	case ReservedPodCIDR:
		return fmt.Sprintf("is in the pod CIDR %s of Node %s", b.Prefix, b.owner.Name)
	default:
		return fmt.Sprintf("is in the Service CIDR %s of ServiceCIDR %s", b.Prefix, b.owner.Name)
	}
}
