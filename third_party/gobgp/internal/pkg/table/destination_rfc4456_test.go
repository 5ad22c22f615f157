package table

import (
	"net/netip"
	"testing"
	"time"

	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
	"github.com/stretchr/testify/require"
)

// TestReflectedCopyLosesToTheRoute: a route reflector holds a client's route as the
// client sent it and as another reflector of the cluster reflected it. The reflector
// that reflected it has the lower BGP Identifier, but RFC 4456 (section 9) compares a
// reflected route by its ORIGINATOR_ID, which ties the two, and then prefers the
// shorter CLUSTER_LIST: the client's own route is best, in either order of arrival.
func TestReflectedCopyLosesToTheRoute(t *testing.T) {
	const asn = 65000
	client := &PeerInfo{AS: asn, LocalAS: asn, Address: netip.MustParseAddr("10.0.0.14"), ID: netip.MustParseAddr("10.0.0.14")}
	otherReflector := &PeerInfo{AS: asn, LocalAS: asn, Address: netip.MustParseAddr("10.0.0.12"), ID: netip.MustParseAddr("10.0.0.12")}
	nlri, _ := bgp.NewIPAddrPrefix(netip.MustParsePrefix("10.245.4.0/24"))
	attrs := func(reflected bool) []bgp.PathAttributeInterface {
		nh, _ := bgp.NewPathAttributeNextHop(netip.MustParseAddr("10.0.0.14"))
		a := []bgp.PathAttributeInterface{bgp.NewPathAttributeOrigin(0), bgp.NewPathAttributeAsPath(nil), nh, bgp.NewPathAttributeLocalPref(100)}
		if reflected {
			originator, _ := bgp.NewPathAttributeOriginatorId(client.ID)
			clusters, _ := bgp.NewPathAttributeClusterList([]netip.Addr{netip.MustParseAddr("10.0.0.1")})
			a = append(a, originator, clusters)
		}
		return a
	}
	direct := NewPath(bgp.RF_IPv4_UC, client, bgp.PathNLRI{NLRI: nlri}, false, attrs(false), time.Now(), false)
	copied := NewPath(bgp.RF_IPv4_UC, otherReflector, bgp.PathNLRI{NLRI: nlri}, false, attrs(true), time.Now(), false)

	for _, order := range [][]*Path{{direct, copied}, {copied, direct}} {
		d := newDestination(nlri, 0)
		for _, p := range order {
			d.Calculate(logger, p)
		}
		require.Len(t, d.knownPathList, 2)
		require.Same(t, direct, d.knownPathList[0], "best path: from %s", d.knownPathList[0].GetSource().Address)
	}
}

// TestOriginatorStandsForTheRouterID: two reflected copies compare by their
// ORIGINATOR_IDs, not by the identifiers of the reflectors they came from; with one
// originator, the copy reflected fewer times wins; with the CLUSTER_LISTs as long, the
// lower peer address.
func TestOriginatorStandsForTheRouterID(t *testing.T) {
	const asn = 65000
	peer := func(addr string) *PeerInfo {
		return &PeerInfo{AS: asn, LocalAS: asn, Address: netip.MustParseAddr(addr), ID: netip.MustParseAddr(addr)}
	}
	nlri, _ := bgp.NewIPAddrPrefix(netip.MustParsePrefix("10.1.0.0/24"))
	reflected := func(from *PeerInfo, originator string, clusters ...string) *Path {
		nh, _ := bgp.NewPathAttributeNextHop(netip.MustParseAddr(originator))
		o, _ := bgp.NewPathAttributeOriginatorId(netip.MustParseAddr(originator))
		var ids []netip.Addr
		for _, c := range clusters {
			ids = append(ids, netip.MustParseAddr(c))
		}
		cl, _ := bgp.NewPathAttributeClusterList(ids)
		return NewPath(bgp.RF_IPv4_UC, from, bgp.PathNLRI{NLRI: nlri}, false,
			[]bgp.PathAttributeInterface{bgp.NewPathAttributeOrigin(0), bgp.NewPathAttributeAsPath(nil), nh, bgp.NewPathAttributeLocalPref(100), o, cl}, time.Now(), false)
	}
	for _, c := range []struct {
		name        string
		best, other *Path
	}{
		{"lower originator, through the higher reflector", reflected(peer("10.0.0.9"), "10.0.1.1", "10.0.0.100"), reflected(peer("10.0.0.2"), "10.0.1.2", "10.0.0.100")},
		{"one originator, fewer reflections", reflected(peer("10.0.0.9"), "10.0.1.1", "10.0.0.100"), reflected(peer("10.0.0.2"), "10.0.1.1", "10.0.0.200", "10.0.0.100")},
		{"one originator, as many reflections", reflected(peer("10.0.0.2"), "10.0.1.1", "10.0.0.100"), reflected(peer("10.0.0.9"), "10.0.1.1", "10.0.0.200")},
	} {
		for _, order := range [][]*Path{{c.best, c.other}, {c.other, c.best}} {
			d := newDestination(nlri, 0)
			for _, p := range order {
				d.Calculate(logger, p)
			}
			require.Same(t, c.best, d.knownPathList[0], "%s: best path from %s", c.name, d.knownPathList[0].GetSource().Address)
		}
	}
}
