package server

import (
	"fmt"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/osrg/gobgp/v4/internal/pkg/table"
	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// TestPropagateBucketAllocatesNothing checks kbgp patch "propagate bucket without
// text": the lock of a path's propagation is found without making a string, a
// destination keeps its bucket, and the buckets still spread destinations. Every path
// added or received passes there; the family's name joined to the prefix cost an
// allocation past 32 bytes (most IPv6 prefixes).
func TestPropagateBucketAllocatesNothing(t *testing.T) {
	d := newSharedData()
	for _, path := range []*table.Path{makePath(t, "10.1.0.0/24", "10.0.0.1", 0), v6Path(t, "2001:db8:aaaa:bbbb:cccc:dddd:eeee:ff00/120")} {
		require.Zero(t, testing.AllocsPerRun(100, func() { d.propagateBucket(path) }), path.GetPrefix())
		require.Same(t, d.propagateBucket(path), d.propagateBucket(path.Clone(true)), "a destination's withdrawal takes its bucket")
	}

	buckets := map[*sync.Mutex]bool{}
	for i := range 256 {
		buckets[d.propagateBucket(makePath(t, fmt.Sprintf("10.2.%d.0/24", i), "10.0.0.1", 0))] = true
	}
	require.Greater(t, len(buckets), 64, "buckets of 256 destinations")
}

// v6Path is a locally originated path to prefix.
func v6Path(t *testing.T, prefix string) *table.Path {
	t.Helper()
	nlri, err := bgp.NewIPAddrPrefix(netip.MustParsePrefix(prefix))
	require.NoError(t, err)
	mp, err := bgp.NewPathAttributeMpReachNLRI(bgp.RF_IPv6_UC, []bgp.PathNLRI{{NLRI: nlri}}, netip.MustParseAddr("2001:db8::1"))
	require.NoError(t, err)
	return table.NewPath(bgp.RF_IPv6_UC, nil, bgp.PathNLRI{NLRI: nlri}, false, []bgp.PathAttributeInterface{bgp.NewPathAttributeOrigin(0), mp}, time.Now(), false)
}
