package server

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/osrg/gobgp/v4/internal/pkg/table"
	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// TestSentPathsKeyIPDestinationsInline checks kbgp patch "sent paths keyed inline,
// recorded while hot": a destination of an IP prefix is recorded under its family,
// address and length, which are equal for two paths exactly when the family and
// text of their destinations are (the key sentPaths had before); an IPv4 unicast
// prefix of an IPv4 address under eight bytes (kbgp patch "sent IPv4 destinations in
// eight bytes"), equal exactly when the text is and never an ipDest; other
// destinations keep their text.
func TestSentPathsKeyIPDestinationsInline(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	var paths []*table.Path
	for range 400 {
		var b [16]byte
		for i := range b {
			b[i] = byte(rnd.IntN(3)) // few distinct values, so that keys collide often
		}
		v6 := netip.AddrFrom16(b)
		v4 := netip.AddrFrom4([4]byte{b[0], b[1], b[2], b[3]})
		switch rnd.IntN(3) {
		case 0:
			paths = append(paths, ipPath(bgp.RF_IPv4_UC, netip.PrefixFrom(v4, 30+rnd.IntN(3)).Masked()))
		case 1:
			paths = append(paths, ipPath(bgp.RF_IPv6_UC, netip.PrefixFrom(v6, 126+rnd.IntN(3))))
		default:
			// An IPv4 prefix's bytes as an IPv4-mapped IPv6 address, with an IPv4
			// length and not masked, in either family: the same 16 bytes and length
			// as the IPv4 prefix, but not the same text.
			mapped := netip.PrefixFrom(netip.AddrFrom16(v4.As16()), 30+rnd.IntN(3))
			family := bgp.RF_IPv6_UC
			if rnd.IntN(2) == 0 {
				family = bgp.RF_IPv4_UC
			}
			nlri := &bgp.IPAddrPrefix{IPAddrPrefixDefault: bgp.IPAddrPrefixDefault{Prefix: mapped}}
			paths = append(paths, table.NewPath(family, nil, bgp.PathNLRI{NLRI: nlri}, false, []bgp.PathAttributeInterface{bgp.NewPathAttributeOrigin(0)}, time.Now(), false))
		}
	}
	equal := 0
	for i, a := range paths {
		for _, b := range paths[i+1:] {
			same := a.GetDestLocalKey() == b.GetDestLocalKey()
			require.Equal(t, same, sentKey(t, a) == sentKey(t, b), "%v and %v", a.GetDestLocalKey(), b.GetDestLocalKey())
			if same {
				equal++
			}
		}
	}
	require.Positive(t, equal, "pairs of paths to one destination")

	var s sentPaths
	for _, p := range paths {
		s.add(p, 0)
	}
	texts := map[table.PathDestLocalKey]struct{}{}
	for _, p := range paths {
		texts[p.GetDestLocalKey()] = struct{}{}
	}
	require.Equal(t, len(texts), s.v4.len()+s.ip.len(), "IP destinations recorded inline, one entry each")
	require.Positive(t, s.v4.len(), "IPv4 destinations recorded in eight bytes")
	require.Zero(t, s.other.len())

	vpn := vpnPath(t, "10.1.0.0/24")
	s.add(vpn, 0)
	require.Equal(t, 1, s.other.len(), "a VPN destination is recorded by its text")
	_, ok := s.ids(vpnPath(t, "10.1.0.0/24"))
	require.True(t, ok)
	s.remove(vpn, 0)
	require.Zero(t, s.other.len())
}

func ipPath(family bgp.Family, prefix netip.Prefix) *table.Path {
	nlri, _ := bgp.NewIPAddrPrefix(prefix)
	return table.NewPath(family, nil, bgp.PathNLRI{NLRI: nlri}, false, []bgp.PathAttributeInterface{bgp.NewPathAttributeOrigin(0)}, time.Now(), false)
}

func vpnPath(t *testing.T, prefix string) *table.Path {
	nlri, err := bgp.NewLabeledVPNIPAddrPrefix(netip.MustParsePrefix(prefix), *bgp.NewMPLSLabelStack(100), bgp.NewRouteDistinguisherTwoOctetAS(65000, 1))
	require.NoError(t, err)
	return table.NewPath(bgp.RF_IPv4_VPN, nil, bgp.PathNLRI{NLRI: nlri}, false, []bgp.PathAttributeInterface{bgp.NewPathAttributeOrigin(0)}, time.Now(), false)
}

// BenchmarkSentPathsRecordTable records a table of 500,000 /32s sent to a peer
// without add-path, as a new session's table walk does, then forgets it; it reports
// the time a destination.
func BenchmarkSentPathsRecordTable(b *testing.B) {
	const n = 500_000
	paths := make([]*table.Path, n)
	for i := range paths {
		paths[i] = ipPath(bgp.RF_IPv4_UC, netip.MustParsePrefix(fmt.Sprintf("10.%d.%d.%d/32", i>>16, (i>>8)&255, i&255)))
	}
	rand.New(rand.NewPCG(3, 4)).Shuffle(n, func(i, j int) { paths[i], paths[j] = paths[j], paths[i] })
	rib := table.NewTableManager(logger, []bgp.Family{bgp.RF_IPv4_UC})
	p := newPeerandInfo(b, 65001, 65002, "10.0.0.2", rib)
	start := time.Now()
	for b.Loop() {
		p.updateRoutes(paths...)
		p.resetAdvertisedRoutes()
	}
	b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(b.N*n), "ns/destination")
}

// sentKey is the key sentPaths records path's destination under, with the table it
// is in.
func sentKey(t *testing.T, path *table.Path) any {
	t.Helper()
	if key, ok := v4DestOf(path); ok {
		return key
	}
	key, ok := ipDestOf(path)
	require.True(t, ok)
	return key
}
