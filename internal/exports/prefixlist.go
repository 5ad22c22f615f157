package exports

import (
	"iter"
	"net/netip"
)

// prefixList is a list of prefixes, each with a value, laid out for the lists the
// index keeps per Service with an entry per route: the routes it gives a peer and the
// addresses it claims. Nearly every entry is an IPv4 host prefix (a Service address),
// kept as its 4 bytes beside its value, where a netip.Prefix takes 32 bytes: a route
// with its attributes takes 16 bytes instead of 40, a claim with its rank 5 instead of
// 32. Other prefixes are kept whole. The order of the entries is not kept.
type prefixList[V any] struct {
	hosts4 []host4[V]
	other  []prefixEntry[V]
}

type host4[V any] struct {
	addr [4]byte
	v    V
}

type prefixEntry[V any] struct {
	prefix netip.Prefix
	v      V
}

// isHost4 reports whether p is an IPv4 host prefix (not an IPv4-mapped IPv6 one).
func isHost4(p netip.Prefix) bool {
	return p.Addr().Is4() && p.Bits() == 32
}

// prefixListOf lists the entries of items, entry giving each one's prefix and value,
// with no spare capacity: the list is kept as long as its Service.
func prefixListOf[T, V any](items []T, entry func(T) (netip.Prefix, V)) prefixList[V] {
	n4 := 0
	for _, it := range items {
		if p, _ := entry(it); isHost4(p) {
			n4++
		}
	}
	l := prefixList[V]{hosts4: make([]host4[V], 0, n4)}
	if n4 < len(items) {
		l.other = make([]prefixEntry[V], 0, len(items)-n4)
	}
	for _, it := range items {
		if p, v := entry(it); isHost4(p) {
			l.hosts4 = append(l.hosts4, host4[V]{p.Addr().As4(), v})
		} else {
			l.other = append(l.other, prefixEntry[V]{p, v})
		}
	}
	return l
}

func (l prefixList[V]) len() int {
	return len(l.hosts4) + len(l.other)
}

// all yields the entries, IPv4 host prefixes first.
func (l prefixList[V]) all() iter.Seq2[netip.Prefix, V] {
	return func(yield func(netip.Prefix, V) bool) {
		for _, h := range l.hosts4 {
			if !yield(netip.PrefixFrom(netip.AddrFrom4(h.addr), 32), h.v) {
				return
			}
		}
		for _, e := range l.other {
			if !yield(e.prefix, e.v) {
				return
			}
		}
	}
}

// get is p's value, found by a scan: for one entry of one Service's list.
func (l prefixList[V]) get(p netip.Prefix) (V, bool) {
	if isHost4(p) {
		a := p.Addr().As4()
		for _, h := range l.hosts4 {
			if h.addr == a {
				return h.v, true
			}
		}
	} else {
		for _, e := range l.other {
			if e.prefix == p {
				return e.v, true
			}
		}
	}
	var zero V
	return zero, false
}
