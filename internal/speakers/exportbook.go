package speakers

import (
	"encoding/binary"
	"net/netip"
	"slices"

	"kbgp.io/kbgp/internal/bgp"
)

// exportBook is what one running peer was last sent: per prefix, its attributes. It
// has an entry per route, so it is laid out for 100k+ prefixes: the prefixes carrying
// the same attributes (nearly all of a peer's routes carry one of a few sets) share one
// interned copy, and an entry costs a pointer instead of a copy of the attributes,
// under a compact key (bgp.PrefixMap).
//
// An interned set is never changed once made: the book holds its own copy of the
// slices, set replaces an entry's pointer rather than the set it points to, and a set
// is dropped when its last prefix leaves.
type exportBook struct {
	prefixes bgp.PrefixMap[*sharedAttributes]
	// shared are the interned sets in use, by attributesKey.
	shared map[string]*sharedAttributes
	// scratch is reused to encode the key of a set to look up.
	scratch []byte
}

// sharedAttributes is one interned attribute set and how many prefixes carry it.
type sharedAttributes struct {
	attrs bgp.PathAttributes
	key   string
	refs  int
}

func newExportBook() *exportBook {
	return &exportBook{shared: map[string]*sharedAttributes{}}
}

// exportBookOf is a book holding export.
func exportBookOf(export map[netip.Prefix]bgp.PathAttributes) *exportBook {
	b := newExportBook()
	for p, a := range export {
		b.set(p, a)
	}
	return b
}

// get is the attributes prefix is sent with, if it is sent. The slices of the result
// are the book's: the caller must not change them.
func (b *exportBook) get(p netip.Prefix) (bgp.PathAttributes, bool) {
	s, ok := b.prefixes.Get(p)
	if !ok {
		return bgp.PathAttributes{}, false
	}
	return s.attrs, true
}

// set records that prefix is sent with a.
func (b *exportBook) set(p netip.Prefix, a bgp.PathAttributes) {
	b.scratch = appendAttributesKey(b.scratch[:0], a)
	old, _ := b.prefixes.Get(p)
	if old != nil && old.key == string(b.scratch) {
		return
	}
	s, ok := b.shared[string(b.scratch)]
	if !ok {
		s = &sharedAttributes{attrs: cloneAttributes(a), key: string(b.scratch)}
		b.shared[s.key] = s
	}
	s.refs++
	b.prefixes.Set(p, s)
	if old != nil {
		b.release(old)
	}
}

// remove records that prefix is no longer sent.
func (b *exportBook) remove(p netip.Prefix) {
	if old, ok := b.prefixes.Get(p); ok {
		b.prefixes.Delete(p)
		b.release(old)
	}
}

func (b *exportBook) release(s *sharedAttributes) {
	if s.refs--; s.refs == 0 {
		delete(b.shared, s.key)
	}
}

// export is a copy of the book as a map (the attributes' slices are the book's).
func (b *exportBook) export() map[netip.Prefix]bgp.PathAttributes {
	out := make(map[netip.Prefix]bgp.PathAttributes, b.prefixes.Len())
	for p, s := range b.prefixes.All() {
		out[p] = s.attrs
	}
	return out
}

// cloneAttributes is a with slices of its own, so that an interned set shares no
// memory with the caller's.
func cloneAttributes(a bgp.PathAttributes) bgp.PathAttributes {
	a.Communities = slices.Clone(a.Communities)
	a.LargeCommunities = slices.Clone(a.LargeCommunities)
	if a.LocalPreference != nil {
		v := *a.LocalPreference
		a.LocalPreference = &v
	}
	if a.MED != nil {
		v := *a.MED
		a.MED = &v
	}
	return a
}

// appendAttributesKey appends to buf an encoding of a that is equal for two sets
// exactly when reflect.DeepEqual says they are, which is how the speaker set tells a
// changed export (a nil and an empty slice differ; so does the order of communities).
func appendAttributesKey(buf []byte, a bgp.PathAttributes) []byte {
	buf = appendSliceLen(buf, a.Communities == nil, len(a.Communities))
	for _, c := range a.Communities {
		buf = binary.BigEndian.AppendUint32(buf, c)
	}
	buf = appendSliceLen(buf, a.LargeCommunities == nil, len(a.LargeCommunities))
	for _, c := range a.LargeCommunities {
		buf = binary.BigEndian.AppendUint32(buf, c.GlobalAdmin)
		buf = binary.BigEndian.AppendUint32(buf, c.LocalData1)
		buf = binary.BigEndian.AppendUint32(buf, c.LocalData2)
	}
	buf = appendOptional(buf, a.LocalPreference)
	buf = appendOptional(buf, a.MED)
	buf = binary.BigEndian.AppendUint32(buf, a.Prepend.ASN)
	buf = append(buf, a.Prepend.Count)
	buf = binary.BigEndian.AppendUint32(buf, a.LinkBandwidth.ASN)
	buf = binary.BigEndian.AppendUint32(buf, a.LinkBandwidth.BytesPerSecond)
	nh, _ := a.NextHop.MarshalBinary()
	return append(buf, nh...)
}

func appendSliceLen(buf []byte, isNil bool, n int) []byte {
	if isNil {
		return append(buf, 0)
	}
	return binary.AppendUvarint(append(buf, 1), uint64(n))
}

func appendOptional(buf []byte, v *uint32) []byte {
	if v == nil {
		return append(buf, 0)
	}
	return binary.BigEndian.AppendUint32(append(buf, 1), *v)
}

// countByFamily counts the book's prefixes by family.
func (b *exportBook) countByFamily() map[bgp.Family]int {
	n := map[bgp.Family]int{}
	for p := range b.prefixes.All() {
		if p.Addr().Is4() {
			n[bgp.FamilyIPv4Unicast]++
		} else {
			n[bgp.FamilyIPv6Unicast]++
		}
	}
	return n
}
