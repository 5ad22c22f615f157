package gobgp

import (
	"cmp"
	"fmt"
	"maps"
	"net/netip"
	"slices"

	"kbgp.io/kbgp/internal/bgp"
)

// peerStatements are the statements of one peer's export policy, as the adapter keeps
// them: not what the peer is sent (the caller says that, see bgp.Router), but how it is
// laid out in GoBGP's policy language. Prefixes that carry the
// same attributes to the peer share an attribute set; each attribute set has, per
// family, one statement (GoBGP refuses mixed families in one prefix set) that matches
// its prefix set and sets its attributes. A statement exists exactly while its prefix
// set is not empty, so the policy has one statement per distinct attribute set and
// family in use, however many prefixes the peer gets.
type peerStatements struct {
	// byPrefix is the attribute set of each prefix the peer is sent, by a compact key
	// (an entry per route).
	byPrefix *bgp.PrefixMap[uint64]
	sets     map[uint64]*attributeSet
	ids      map[string]uint64
	// next is the id of the next new attribute set. Ids are never reused: GoBGP keeps a
	// statement's name taken until it is deleted, and a fresh name needs no ordering.
	next uint64
}

// attributeSet is one distinct set of attributes and how many of the peer's prefixes
// of each family carry it.
type attributeSet struct {
	attrs bgp.PathAttributes
	count [2]int
}

// cell names one statement of a peer's policy: an attribute set and a family.
type cell struct {
	id uint64
	v6 bool
}

// cellEdit is the change of one statement's prefix set.
type cellEdit struct {
	cell     cell
	attrs    bgp.PathAttributes
	prefixes []netip.Prefix
	// last: a grown cell is new (its statement must be created); a shrunk cell ends
	// empty (its statement must be deleted).
	last bool
}

// prefixMove is one prefix leaving attribute set from and joining to (0: none).
type prefixMove struct {
	prefix   netip.Prefix
	from, to uint64
}

// exportEdit is a planned change of a peer's export: the statements to grow first
// (so that a prefix moving between attribute sets is never in neither), then those to
// shrink, and what commit records once GoBGP has applied them.
type exportEdit struct {
	grow, shrink []cellEdit
	moves        []prefixMove
	newSets      map[uint64]bgp.PathAttributes
	next         uint64
}

func newPeerStatements() *peerStatements {
	return &peerStatements{byPrefix: &bgp.PrefixMap[uint64]{}, sets: map[uint64]*attributeSet{}, ids: map[string]uint64{}, next: 1}
}

// plan computes the edit that gives the prefixes of set their attributes and takes the
// prefixes of remove out, without changing pe. Its cost is in the size of the change,
// not of the export.
func (pe *peerStatements) plan(set []bgp.Path, remove []netip.Prefix) exportEdit {
	e := exportEdit{newSets: map[uint64]bgp.PathAttributes{}, next: pe.next, moves: make([]prefixMove, 0, len(set)+len(remove))}
	newIDs := map[string]uint64{}
	grow, shrink := map[cell][]netip.Prefix{}, map[cell][]netip.Prefix{}
	// A run of prefixes with one attribute set (a whole export, often) makes its key
	// once.
	var last bgp.PathAttributes
	var lastID uint64
	idFor := func(a bgp.PathAttributes) uint64 {
		if lastID != 0 && a.Equal(last) {
			return lastID
		}
		k := attributesKey(a)
		id, ok := pe.ids[k]
		if !ok {
			id, ok = newIDs[k]
		}
		if !ok {
			id = e.next
			e.next++
			newIDs[k], e.newSets[id] = id, a
		}
		last, lastID = a, id
		return id
	}
	for _, p := range set {
		to := idFor(p.Attributes)
		from, _ := pe.byPrefix.Get(p.Prefix)
		if from == to {
			continue
		}
		v6 := p.Prefix.Addr().Is6()
		if from != 0 {
			shrink[cell{from, v6}] = append(shrink[cell{from, v6}], p.Prefix)
		}
		grow[cell{to, v6}] = append(grow[cell{to, v6}], p.Prefix)
		e.moves = append(e.moves, prefixMove{prefix: p.Prefix, from: from, to: to})
	}
	for _, p := range remove {
		from, ok := pe.byPrefix.Get(p)
		if !ok {
			continue
		}
		c := cell{from, p.Addr().Is6()}
		shrink[c] = append(shrink[c], p)
		e.moves = append(e.moves, prefixMove{prefix: p, from: from})
	}
	for c, ps := range grow {
		e.grow = append(e.grow, cellEdit{cell: c, attrs: e.attributes(pe, c.id), prefixes: ps, last: pe.count(c) == 0})
	}
	for c, ps := range shrink {
		e.shrink = append(e.shrink, cellEdit{cell: c, attrs: e.attributes(pe, c.id), prefixes: ps, last: pe.count(c)+len(grow[c]) == len(ps)})
	}
	slices.SortFunc(e.grow, compareCellEdit)
	slices.SortFunc(e.shrink, compareCellEdit)
	return e
}

// commit records an applied edit.
func (pe *peerStatements) commit(e exportEdit) {
	for id, a := range e.newSets {
		pe.sets[id] = &attributeSet{attrs: a}
		pe.ids[attributesKey(a)] = id
	}
	pe.next = e.next
	if pe.byPrefix.Len() == 0 {
		// A peer's first export (its whole table, when it is added): sized at once.
		pe.byPrefix = bgp.NewPrefixMap[uint64](len(e.moves))
	}
	touched := map[uint64]bool{}
	for _, m := range e.moves {
		fam := family(m.prefix)
		if m.from != 0 {
			pe.sets[m.from].count[fam]--
			pe.byPrefix.Delete(m.prefix)
			touched[m.from] = true
		}
		if m.to != 0 {
			pe.sets[m.to].count[fam]++
			pe.byPrefix.Set(m.prefix, m.to)
		}
	}
	for id := range touched {
		if s := pe.sets[id]; s.count == [2]int{} {
			delete(pe.ids, attributesKey(s.attrs))
			delete(pe.sets, id)
		}
	}
}

// prefixes are the prefixes the peer is sent.
func (pe *peerStatements) prefixes() []netip.Prefix {
	out := make([]netip.Prefix, 0, pe.byPrefix.Len())
	for p := range pe.byPrefix.All() {
		out = append(out, p)
	}
	return out
}

// cells lists the statements the peer's policy has, for tearing it down.
func (pe *peerStatements) cells() []cell {
	var out []cell
	for _, id := range slices.Sorted(maps.Keys(pe.sets)) {
		for fam, v6 := range []bool{false, true} {
			if pe.sets[id].count[fam] > 0 {
				out = append(out, cell{id, v6})
			}
		}
	}
	return out
}

func (pe *peerStatements) count(c cell) int {
	s, ok := pe.sets[c.id]
	if !ok {
		return 0
	}
	return s.count[familyIndex(c.v6)]
}

func (e exportEdit) attributes(pe *peerStatements, id uint64) bgp.PathAttributes {
	if a, ok := e.newSets[id]; ok {
		return a
	}
	return pe.sets[id].attrs
}

// attributesKey identifies equal attribute sets, whatever the order of communities.
func attributesKey(a bgp.PathAttributes) string {
	cs := slices.Sorted(slices.Values(a.Communities))
	ls := slices.SortedFunc(slices.Values(a.LargeCommunities), func(x, y bgp.LargeCommunity) int {
		return cmp.Or(cmp.Compare(x.GlobalAdmin, y.GlobalAdmin), cmp.Compare(x.LocalData1, y.LocalData1), cmp.Compare(x.LocalData2, y.LocalData2))
	})
	lp := "-"
	if a.LocalPreference != nil {
		lp = fmt.Sprint(*a.LocalPreference)
	}
	med := "-"
	if a.MED != nil {
		med = fmt.Sprint(*a.MED)
	}
	return fmt.Sprint(slices.Compact(cs), slices.Compact(ls), lp, med, a.Prepend, a.LinkBandwidth, a.NextHop)
}

func compareCellEdit(a, b cellEdit) int {
	return cmp.Or(cmp.Compare(a.cell.id, b.cell.id), cmp.Compare(familyIndex(a.cell.v6), familyIndex(b.cell.v6)))
}

func family(p netip.Prefix) int { return familyIndex(p.Addr().Is6()) }

func familyIndex(v6 bool) int {
	if v6 {
		return 1
	}
	return 0
}
