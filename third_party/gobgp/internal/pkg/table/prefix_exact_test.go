package table

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// randomEntry is a prefix-set entry in 10.0.0.0/16 or 2001:db8::/112: exact (its
// own length alone, masked), exact-looking with host bits set, or with a range.
func randomEntry(rng *rand.Rand, v6 bool) *Prefix {
	var addr netip.Addr
	var base int
	if v6 {
		addr = netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 14: byte(rng.IntN(4)), 15: byte(rng.IntN(256))})
		base = 112
	} else {
		addr = netip.AddrFrom4([4]byte{10, 0, byte(rng.IntN(4)), byte(rng.IntN(256))})
		base = 16
	}
	bits := base + rng.IntN(addr.BitLen()-base+1)
	p := &Prefix{Prefix: netip.PrefixFrom(addr, bits).Masked(), AddressFamily: bgp.RF_IPv4_UC}
	if v6 {
		p.AddressFamily = bgp.RF_IPv6_UC
	}
	p.MasklengthRangeMin, p.MasklengthRangeMax = uint8(bits), uint8(bits)
	switch rng.IntN(4) {
	case 0: // a range reaching longer prefixes
		p.MasklengthRangeMax = uint8(min(addr.BitLen(), bits+rng.IntN(8)+1))
	case 1: // host bits set: the entry's text is not its key's
		if bits < addr.BitLen() {
			p.Prefix = netip.PrefixFrom(addr, bits)
		}
	}
	return p
}

func randomEntries(rng *rand.Rand, v6 bool, n int) []*Prefix {
	entries := make([]*Prefix, n)
	for i := range entries {
		entries[i] = randomEntry(rng, v6)
	}
	return entries
}

// walkMatches is upstream's answer: some entry holds r and its range holds r's length.
func walkMatches(entries []*Prefix, r netip.Prefix) bool {
	return slices.ContainsFunc(entries, func(p *Prefix) bool {
		return p.Prefix.Bits() <= r.Bits() && p.Prefix.Contains(r.Addr()) &&
			p.MasklengthRangeMin <= uint8(r.Bits()) && uint8(r.Bits()) <= p.MasklengthRangeMax
	})
}

// entryTexts is the set of entries as List writes them.
func entryTexts(entries []*Prefix) []string {
	var texts []string
	for _, p := range entries {
		texts = append(texts, fmt.Sprintf("%s %d..%d", p.PrefixString(), p.MasklengthRangeMin, p.MasklengthRangeMax))
	}
	slices.Sort(texts)
	return slices.Compact(texts)
}

// TestExactPrefixesLookedUpByHash checks kbgp patch "exact prefixes looked up by
// hash": a prefix set that holds its exact entries in a hash answers every path as
// upstream's walk over all entries does, through Append, Remove and Replace, with the
// match inverted or not, and lists the same entries; and exact entries stay out of
// the tree.
func TestExactPrefixesLookedUpByHash(t *testing.T) {
	rng := rand.New(rand.NewPCG(38, 30))
	for _, v6 := range []bool{false, true} {
		for round := range 20 {
			entries := randomEntries(rng, v6, 60)
			set, err := NewPrefixSetFromApiStruct("s", entries)
			if err != nil {
				t.Fatal(err)
			}
			check := func(step string) {
				t.Helper()
				for range 400 {
					r := randomEntry(rng, v6).Prefix.Masked()
					nlri, _ := bgp.NewIPAddrPrefix(r)
					f := bgp.RF_IPv4_UC
					if v6 {
						f = bgp.RF_IPv6_UC
					}
					path := NewPath(f, nil, bgp.PathNLRI{NLRI: nlri}, false, []bgp.PathAttributeInterface{}, time.Now(), false)
					for _, option := range []MatchOption{MATCH_OPTION_ANY, MATCH_OPTION_INVERT} {
						want := walkMatches(entries, r) != (option == MATCH_OPTION_INVERT)
						if got := (&PrefixCondition{set: set, option: option}).Evaluate(path, nil); got != want {
							t.Fatalf("v6 %v round %d after %s: %s with option %v matches %v, the walk says %v", v6, round, step, r, option, got, want)
						}
					}
				}
				if got, want := slices.Compact(slices.Sorted(slices.Values(set.List()))), entryTexts(entries); !slices.Equal(got, want) {
					t.Fatalf("v6 %v round %d after %s: List %v, want %v", v6, round, step, got, want)
				}
				if set.size() != 0 && len(set.ToConfig().PrefixList) == 0 {
					t.Fatalf("after %s: ToConfig lists nothing", step)
				}
			}
			check("the first set")

			added := randomEntries(rng, v6, 30)
			rhs, _ := NewPrefixSetFromApiStruct("s", added)
			if err := set.Append(rhs); err != nil {
				t.Fatal(err)
			}
			entries = append(entries, added...)
			check("append")

			var removed []*Prefix
			for _, p := range entries {
				if rng.IntN(3) == 0 {
					removed = append(removed, &Prefix{Prefix: p.Prefix, AddressFamily: p.AddressFamily, MasklengthRangeMin: p.MasklengthRangeMin, MasklengthRangeMax: p.MasklengthRangeMax})
				}
			}
			removed = append(removed, randomEntries(rng, v6, 5)...) // some not in the set
			rhs, _ = NewPrefixSetFromApiStruct("s", removed)
			if err := set.Remove(rhs); err != nil {
				t.Fatal(err)
			}
			entries = slices.DeleteFunc(entries, func(p *Prefix) bool { return slices.ContainsFunc(removed, p.Equal) })
			check("remove")

			entries = randomEntries(rng, v6, 40)
			rhs, _ = NewPrefixSetFromApiStruct("s", entries)
			if err := set.Replace(rhs); err != nil {
				t.Fatal(err)
			}
			check("replace")
		}
	}

	hosts := make([]*Prefix, 0, 256)
	for i := range 256 {
		hosts = append(hosts, &Prefix{Prefix: netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 1, 0, byte(i)}), 32), AddressFamily: bgp.RF_IPv4_UC, MasklengthRangeMin: 32, MasklengthRangeMax: 32})
	}
	set, _ := NewPrefixSetFromApiStruct("hosts", hosts)
	if set.tree.Size() != 0 || set.exact.len() != len(hosts) {
		t.Errorf("256 exact /32s: %d in the tree, %d looked up by hash; want none and 256", set.tree.Size(), set.exact.len())
	}
}

// BenchmarkPrefixConditionHostRoutes evaluates n paths against a set of their n
// /32s, in an order that is not the set's, as an export policy does in a table walk.
func BenchmarkPrefixConditionHostRoutes(b *testing.B) {
	for _, n := range []int{1000, 100_000, 1_000_000} {
		prefixes := make([]*Prefix, n)
		paths := make([]*Path, n)
		for i := range n {
			p := netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}), 32)
			prefixes[i] = &Prefix{Prefix: p, AddressFamily: bgp.RF_IPv4_UC, MasklengthRangeMin: 32, MasklengthRangeMax: 32}
			nlri, _ := bgp.NewIPAddrPrefix(p)
			paths[i] = NewPath(bgp.RF_IPv4_UC, nil, bgp.PathNLRI{NLRI: nlri}, false, []bgp.PathAttributeInterface{}, time.Now(), false)
		}
		rand.New(rand.NewPCG(1, 2)).Shuffle(n, func(i, j int) { paths[i], paths[j] = paths[j], paths[i] })
		set, _ := NewPrefixSetFromApiStruct("hosts", prefixes)
		c := &PrefixCondition{set: set}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			i := 0
			for b.Loop() {
				if !c.Evaluate(paths[i%n], nil) {
					b.Fatal("no match")
				}
				i++
			}
		})
	}
}
