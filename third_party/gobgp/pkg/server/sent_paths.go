package server

import (
	"hash/maphash"
	"sync"

	"github.com/osrg/gobgp/v4/internal/pkg/table"
)

// sentPathShardCount is how many shards a peer's sentPaths has: enough that the
// propagation of different prefixes in parallel rarely waits on one.
const sentPathShardCount = 64

// sentPathSeed seeds the hash of a destination to its shard.
var sentPathSeed = maphash.MakeSeed()

// sentPaths is what a peer was sent, by destination: sentIDZero or a pathIDSet. It
// lasts as long as the session and holds every route the peer was sent, so an entry
// is kept small: a plain map per shard, each under its own mutex. A sync.Map boxed
// every key and kept an entry and trie nodes per destination: 127 bytes a
// destination against 63 (TestSentPathsCostLittlePerDestination). The zero value is
// empty and ready.
type sentPaths struct {
	shards [sentPathShardCount]sentPathShard
}

type sentPathShard struct {
	mu sync.Mutex
	m  map[table.PathDestLocalKey]any
}

func (s *sentPaths) shard(key table.PathDestLocalKey) *sentPathShard {
	return &s.shards[maphash.Comparable(sentPathSeed, key)%sentPathShardCount]
}

// Load returns the destination's entry, if there is one.
func (s *sentPaths) Load(key table.PathDestLocalKey) (any, bool) {
	sh := s.shard(key)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	v, ok := sh.m[key]
	return v, ok
}

// Store sets the destination's entry.
func (s *sentPaths) Store(key table.PathDestLocalKey, value any) {
	sh := s.shard(key)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.m == nil {
		sh.m = map[table.PathDestLocalKey]any{}
	}
	sh.m[key] = value
}

// Delete drops the destination's entry.
func (s *sentPaths) Delete(key table.PathDestLocalKey) {
	sh := s.shard(key)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	delete(sh.m, key)
}

// Clear drops every entry, and the maps with them: a session that ends frees what
// it was sent.
func (s *sentPaths) Clear() {
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		sh.m = nil
		sh.mu.Unlock()
	}
}

// Len is the number of destinations recorded.
func (s *sentPaths) Len() int {
	n := 0
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		n += len(sh.m)
		sh.mu.Unlock()
	}
	return n
}
