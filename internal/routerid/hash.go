package routerid

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"net/netip"
)

// DefaultPool is the routerIDPool used when an instance sets none. It equals the CRD
// default, so an empty field and the defaulted one resolve and lock alike.
const DefaultPool = "10.255.0.0/16"

// UsageWarnFraction is the pool usage above which the operator should warn (document
// 000, pool exhaustion). It is a last alarm, not a safe level: by the birthday bound a
// collision somewhere is already likely far below it (about even odds for 300 nodes
// in a /16), which is why Usage also counts Collisions.
const UsageWarnFraction = 0.5

const (
	// maxPoolPrefixLen keeps at least 256 addresses in a pool: a /32 or /31 would give
	// every node the same router ID.
	maxPoolPrefixLen = 24
	// maxPoolLength is the longest IPv4 CIDR text, checked before parsing so that an
	// error never has to echo a long input.
	maxPoolLength = len("255.255.255.255/32")
)

// Pool is a validated routerIDPool: an IPv4 network of at least 256 addresses
// (prefix length /24 or shorter), without host bits, overlapping no range that
// Validate rejects. The zero Pool is DefaultPool.
type Pool struct {
	prefix netip.Prefix
}

// ParsePool validates a routerIDPool; the empty string means DefaultPool. Beyond the
// CRD's rules it rejects pools overlapping the loopback, link-local, multicast,
// unspecified or broadcast ranges: such a pool would hash some nodes to an unusable
// ID, and a configuration error for every node beats a failure on a few.
func ParsePool(s string) (Pool, error) {
	s = poolOrDefault(s)
	if len(s) > maxPoolLength {
		return Pool{}, fmt.Errorf("routerIDPool is %d bytes; an IPv4 CIDR has at most %d", len(s), maxPoolLength)
	}
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return Pool{}, fmt.Errorf("routerIDPool %q is not a CIDR such as %s", s, DefaultPool)
	}
	if !p.Addr().Is4() {
		return Pool{}, fmt.Errorf("routerIDPool %q is not IPv4: router IDs are IPv4 addresses", s)
	}
	if p.Bits() > maxPoolPrefixLen {
		return Pool{}, fmt.Errorf("routerIDPool %q holds %d addresses; it needs a prefix length of /%d or shorter (at least 256 addresses) so that nodes do not share a router ID",
			s, uint64(1)<<(32-p.Bits()), maxPoolPrefixLen)
	}
	if p.Masked() != p {
		return Pool{}, fmt.Errorf("routerIDPool %q has host bits set; use the network address %s", s, p.Masked())
	}
	for _, r := range unusableRanges {
		if r.prefix.Overlaps(p) {
			return Pool{}, fmt.Errorf("routerIDPool %q overlaps the %s range %s, which cannot hold router IDs", s, r.what, r.prefix)
		}
	}
	return Pool{prefix: p}, nil
}

// poolOrDefault applies the default of an empty routerIDPool.
func poolOrDefault(s string) string {
	if s == "" {
		return DefaultPool
	}
	return s
}

// Prefix returns the pool's network.
func (p Pool) Prefix() netip.Prefix {
	if !p.prefix.IsValid() {
		return netip.MustParsePrefix(DefaultPool)
	}
	return p.prefix
}

// size is the number of addresses in the pool, in 64 bits so that no accepted prefix
// length overflows.
func (p Pool) size() uint64 { return uint64(1) << (32 - p.Prefix().Bits()) }

// String returns the pool in CIDR notation.
func (p Pool) String() string { return p.Prefix().String() }

// Hash maps a node name into the pool exactly as docs/router-id.md describes, so the same name
// gets the same ID on every architecture and in every implementation of the formula:
// FNV-1a 32-bit over the name's bytes, offset = hash % (poolSize-1) + 1, result = pool
// base + offset, assembled big-endian. The +1 skips the network address; the modulus
// poolSize-1 keeps the offset inside the pool.
func (p Pool) Hash(nodeName string) netip.Addr {
	h := fnv.New32a()
	h.Write([]byte(nodeName)) // a hash.Hash never returns a write error
	offset := uint32(uint64(h.Sum32())%(p.size()-1) + 1)
	base := p.Prefix().Addr().As4()
	var out [4]byte
	binary.BigEndian.PutUint32(out[:], binary.BigEndian.Uint32(base[:])+offset)
	return netip.AddrFrom4(out)
}

// Usage is how much of a pool a set of hash-resolved node names occupies.
type Usage struct {
	// Nodes is the number of distinct node names.
	Nodes int
	// Used is the number of distinct router IDs those names hash to.
	Used int
	// Capacity is the number of router IDs hashing can produce: the pool's size less
	// the network address.
	Capacity uint64
}

// Fraction is Used / Capacity; compare it with UsageWarnFraction.
func (u Usage) Fraction() float64 { return float64(u.Used) / float64(u.Capacity) }

// Collisions is the number of nodes that share a router ID with another node: two
// names on one ID count as one collision.
func (u Usage) Collisions() int { return u.Nodes - u.Used }

// Usage hashes every name into the pool and counts the distinct IDs. Pass only the
// names whose router ID came from the hash: nodes with an explicit, template or
// auto-detected ID take no address from the pool.
func (p Pool) Usage(nodeNames []string) Usage {
	names := make(map[string]struct{}, len(nodeNames))
	ids := make(map[netip.Addr]struct{}, len(nodeNames))
	for _, n := range nodeNames {
		names[n] = struct{}{}
		ids[p.Hash(n)] = struct{}{}
	}
	return Usage{Nodes: len(names), Used: len(ids), Capacity: p.size() - 1}
}
