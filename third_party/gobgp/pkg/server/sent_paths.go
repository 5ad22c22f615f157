package server

import (
	"encoding/binary"
	"hash/maphash"
	"sync"

	"github.com/osrg/gobgp/v4/internal/pkg/table"
	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// sentPathShardCount is how many shards a sentTable has: enough that the
// propagation of different prefixes in parallel rarely waits on one.
const sentPathShardCount = 64

// sentPathSeed seeds the hash of a destination to its shard.
var sentPathSeed = maphash.MakeSeed()

// sentPaths is what a peer was sent, by destination: sentIDZero or a pathIDSet. It
// lasts as long as the session and holds every route the peer was sent, so an entry
// is kept small: a plain map per shard, each under its own mutex. A sync.Map boxed
// every key and kept an entry and trie nodes per destination: 127 bytes a
// destination against 63 (TestSentPathsCostLittlePerDestination). Destinations of
// IP prefixes are keyed inline (ipDest), the others by their text. The zero value
// is empty and ready.
type sentPaths struct {
	v4    sentTable[uint64] // IPv4 unicast, see v4DestOf
	ip    sentTable[ipDest]
	other sentTable[table.PathDestLocalKey]
}

// v4DestOf returns path's destination in eight bytes, its address and length, when
// it is an IPv4 unicast prefix of an IPv4 address, the destinations of most tables
// (kbgp patch "sent IPv4 destinations in eight bytes"): a set's slot is its key, 8
// bytes where an ipDest takes 24, and the map hashes it as one word. Two such
// destinations have the same key exactly when they have the same text.
func v4DestOf(path *table.Path) (uint64, bool) {
	if path.GetFamily() != bgp.RF_IPv4_UC {
		return 0, false
	}
	nlri, ok := path.GetNlri().(*bgp.IPAddrPrefix)
	if !ok || !nlri.Prefix.Addr().Is4() {
		return 0, false
	}
	addr := nlri.Prefix.Addr().As4()
	return uint64(binary.BigEndian.Uint32(addr[:]))<<8 | uint64(uint8(nlri.Prefix.Bits())), true
}

// ipDest is a destination of an IP prefix (an IPAddrPrefix NLRI: IPv4 and IPv6
// unicast) as sentPaths keys it, equal for two destinations exactly when their
// family and text are (kbgp patch "sent paths keyed inline, recorded while hot").
// It fits in the map's slot and holds no pointer, so it is hashed, and rehashed as
// the map grows, without reading the prefix's text elsewhere in memory, a cache
// miss a path once the table is large.
type ipDest struct {
	family bgp.Family
	bits   int16
	is4    bool
	addr   [16]byte
}

// ipDestOf returns path's destination as an ipDest when its NLRI is an IP prefix.
func ipDestOf(path *table.Path) (ipDest, bool) {
	nlri, ok := path.GetNlri().(*bgp.IPAddrPrefix)
	if !ok {
		return ipDest{}, false
	}
	addr := nlri.Prefix.Addr()
	return ipDest{family: path.GetFamily(), bits: int16(nlri.Prefix.Bits()), is4: addr.Is4(), addr: addr.As16()}, true
}

// ids returns the path IDs recorded for path's destination, if there are any.
func (s *sentPaths) ids(path *table.Path) (any, bool) {
	if key, ok := v4DestOf(path); ok {
		return s.v4.ids(key)
	}
	if key, ok := ipDestOf(path); ok {
		return s.ip.ids(key)
	}
	return s.other.ids(path.GetDestLocalKey())
}

// add records path ID id as sent for path's destination.
func (s *sentPaths) add(path *table.Path, id uint32) {
	if key, ok := v4DestOf(path); ok {
		s.v4.add(key, id)
		return
	}
	if key, ok := ipDestOf(path); ok {
		s.ip.add(key, id)
		return
	}
	s.other.add(path.GetDestLocalKey(), id)
}

// remove forgets path ID id of path's destination, and the destination with its
// last ID.
func (s *sentPaths) remove(path *table.Path, id uint32) {
	if key, ok := v4DestOf(path); ok {
		s.v4.remove(key, id)
		return
	}
	if key, ok := ipDestOf(path); ok {
		s.ip.remove(key, id)
		return
	}
	s.other.remove(path.GetDestLocalKey(), id)
}

// Clear drops every entry, and the maps with them: a session that ends frees what
// it was sent.
func (s *sentPaths) Clear() {
	s.v4.clear()
	s.ip.clear()
	s.other.clear()
}

// Len is the number of destinations recorded.
func (s *sentPaths) Len() int {
	return s.v4.len() + s.ip.len() + s.other.len()
}

// sentTable holds the path IDs sent for destinations keyed by K, in shards by the
// key's hash. Each operation hashes the key once for its shard and takes the
// shard's lock once.
type sentTable[K comparable] struct {
	shards [sentPathShardCount]sentShard[K]
}

type sentShard[K comparable] struct {
	mu sync.Mutex
	// zero is the set of destinations sent path ID 0 alone, every destination of a
	// peer without ADD-PATH send: a set's slot is its key, where a map to any took
	// 16 bytes more for sentIDZero, and recording a destination is one map
	// operation, where a look-up came first (kbgp patch "sent paths a set without
	// path IDs").
	zero map[K]struct{}
	// ids holds the destinations sent other path IDs.
	ids map[K]pathIDSet
}

func (t *sentTable[K]) shard(key K) *sentShard[K] {
	return &t.shards[maphash.Comparable(sentPathSeed, key)%sentPathShardCount]
}

func (t *sentTable[K]) ids(key K) (any, bool) {
	sh := t.shard(key)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if _, ok := sh.zero[key]; ok {
		return sentIDZero{}, true
	}
	if ids, ok := sh.ids[key]; ok {
		return ids, true
	}
	return nil, false
}

// add adds id to key's entry: in the set of destinations sent ID 0 alone, else in
// a pathIDSet (changed in place once there is one).
func (t *sentTable[K]) add(key K, id uint32) {
	sh := t.shard(key)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if ids, ok := sh.ids[key]; ok {
		ids[id] = struct{}{}
		return
	}
	if id == 0 {
		if sh.zero == nil {
			sh.zero = map[K]struct{}{}
		}
		sh.zero[key] = struct{}{}
		return
	}
	ids := pathIDSet{id: {}}
	if _, ok := sh.zero[key]; ok {
		delete(sh.zero, key)
		ids[0] = struct{}{}
	}
	if sh.ids == nil {
		sh.ids = map[K]pathIDSet{}
	}
	sh.ids[key] = ids
}

// remove removes id from key's entry, and the entry when it held no other.
func (t *sentTable[K]) remove(key K, id uint32) {
	sh := t.shard(key)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if _, ok := sh.zero[key]; ok {
		if id == 0 {
			delete(sh.zero, key)
		}
		return
	}
	if ids, ok := sh.ids[key]; ok {
		delete(ids, id)
		if len(ids) == 0 {
			delete(sh.ids, key)
		}
	}
}

func (t *sentTable[K]) clear() {
	for i := range t.shards {
		sh := &t.shards[i]
		sh.mu.Lock()
		sh.zero, sh.ids = nil, nil
		sh.mu.Unlock()
	}
}

func (t *sentTable[K]) len() int {
	n := 0
	for i := range t.shards {
		sh := &t.shards[i]
		sh.mu.Lock()
		n += len(sh.zero) + len(sh.ids)
		sh.mu.Unlock()
	}
	return n
}
