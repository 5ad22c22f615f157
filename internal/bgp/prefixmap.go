package bgp

import (
	"iter"
	"net/netip"
)

// PrefixMap maps prefixes to values, laid out for the maps kbgp keeps with an entry
// per route. An IPv4 prefix is keyed by its address and length in 8 bytes: with a
// pointer for its value its slot takes 16 bytes, where under a PrefixKey (18 bytes,
// padded to 24 beside a pointer) it takes 32 and under a netip.Prefix 40. Other
// prefixes are keyed by their PrefixKey. The zero map is empty and ready to use; a
// PrefixMap must not be copied once used. A nil *PrefixMap reads as an empty map, as a
// nil Go map does.
type PrefixMap[V any] struct {
	v4    map[uint64]V
	other map[PrefixKey]V
}

// NewPrefixMap is an empty map with room for size IPv4 prefixes.
func NewPrefixMap[V any](size int) *PrefixMap[V] {
	return &PrefixMap[V]{v4: make(map[uint64]V, size)}
}

// v4Key is the key of a valid IPv4 prefix in PrefixMap.v4; ok is false for any other
// (an IPv4-mapped IPv6 prefix is an IPv6 one, as in netip).
func v4Key(p netip.Prefix) (key uint64, ok bool) {
	if !p.IsValid() || !p.Addr().Is4() {
		return 0, false
	}
	a := p.Addr().As4()
	return uint64(a[0])<<32 | uint64(a[1])<<24 | uint64(a[2])<<16 | uint64(a[3])<<8 | uint64(p.Bits()), true
}

// v4Prefix is the prefix k is the key of.
func v4Prefix(k uint64) netip.Prefix {
	return netip.PrefixFrom(netip.AddrFrom4([4]byte{byte(k >> 32), byte(k >> 24), byte(k >> 16), byte(k >> 8)}), int(k&0xff))
}

// Get is p's value, if p is in the map.
func (m *PrefixMap[V]) Get(p netip.Prefix) (V, bool) {
	var v V
	var ok bool
	if m == nil {
		return v, false
	}
	if k, is4 := v4Key(p); is4 {
		v, ok = m.v4[k]
	} else {
		v, ok = m.other[KeyOf(p)]
	}
	return v, ok
}

// Set gives p the value v.
func (m *PrefixMap[V]) Set(p netip.Prefix, v V) {
	if k, ok := v4Key(p); ok {
		if m.v4 == nil {
			m.v4 = map[uint64]V{}
		}
		m.v4[k] = v
		return
	}
	if m.other == nil {
		m.other = map[PrefixKey]V{}
	}
	m.other[KeyOf(p)] = v
}

// Delete takes p out of the map.
func (m *PrefixMap[V]) Delete(p netip.Prefix) {
	if m == nil {
		return
	}
	if k, ok := v4Key(p); ok {
		delete(m.v4, k)
	} else {
		delete(m.other, KeyOf(p))
	}
}

// Len is the number of prefixes in the map.
func (m *PrefixMap[V]) Len() int {
	if m == nil {
		return 0
	}
	return len(m.v4) + len(m.other)
}

// All yields the prefixes and their values, in no particular order. The map may be
// changed while it is walked, as a Go map may.
func (m *PrefixMap[V]) All() iter.Seq2[netip.Prefix, V] {
	return func(yield func(netip.Prefix, V) bool) {
		if m == nil {
			return
		}
		for k, v := range m.v4 {
			if !yield(v4Prefix(k), v) {
				return
			}
		}
		for k, v := range m.other {
			if !yield(k.Prefix(), v) {
				return
			}
		}
	}
}
