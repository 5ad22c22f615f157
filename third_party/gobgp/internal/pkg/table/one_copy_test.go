package table

import (
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/osrg/gobgp/v4/pkg/config/oc"
	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// TestOneCopyASentPath checks kbgp patch "one copy a sent path": an export policy's
// actions change the copy UpdatePathAttrs made in place when the caller says it owns
// it (PolicyOptions.Owned), and the path sent has the very attributes it had when the
// policy changed a clone of that copy, as upstream does; the path in the table is not
// touched, and a path the caller does not own is still cloned.
func TestOneCopyASentPath(t *testing.T) {
	s := createStatement("statement1", "", "ns1", true)
	s.Actions.BgpActions.SetRouteOrigin = oc.BGP_ORIGIN_ATTR_TYPE_IGP
	s.Actions.BgpActions.SetMed = oc.BgpSetMedType("50")
	s.Actions.BgpActions.SetCommunity = createSetCommunity("REPLACE", "65001:1")
	r := NewRoutingPolicy(logger)
	require.NoError(t, r.reload(createRoutingPolicy(oc.DefinedSets{NeighborSets: []oc.NeighborSet{createNeighborSet("ns1", "10.0.0.2")}},
		createPolicyDefinition("pd1", s))))
	policy := r.policyMap["pd1"]

	cases := append([]ebgpCase{{name: "received path with a MED, which eBGP drops before the policy sets one", localAddr: "10.0.0.1", path: func(t *testing.T) *Path {
		nlri, _ := bgp.NewIPAddrPrefix(netip.MustParsePrefix("10.3.0.0/24"))
		nh, _ := bgp.NewPathAttributeNextHop(netip.MustParseAddr("10.0.0.3"))
		src := &PeerInfo{AS: 65003, LocalAS: 65001, Address: netip.MustParseAddr("10.0.0.3"), ID: netip.MustParseAddr("10.0.0.3")}
		return NewPath(bgp.RF_IPv4_UC, src, bgp.PathNLRI{NLRI: nlri}, false, []bgp.PathAttributeInterface{
			bgp.NewPathAttributeOrigin(2), nh,
			bgp.NewPathAttributeAsPath([]bgp.AsPathParamInterface{bgp.NewAs4PathParam(bgp.BGP_ASPATH_ATTR_TYPE_SEQ, []uint32{65003})}),
			bgp.NewPathAttributeMultiExitDisc(7),
		}, time.Now(), false)
	}}}, ebgpCases...)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, info := ebgpPeerInfo(t, c)
			path := c.path(t)
			inTable := serializedAttrs(t, path)

			// Upstream's way: the policy clones the copy.
			copied := UpdatePathAttrs(logger, g, info, path)
			result, cloned := policy.Apply(logger, copied, &PolicyOptions{Info: info})
			require.Equal(t, ROUTE_TYPE_ACCEPT, result)
			require.NotSame(t, copied, cloned, "a path the caller does not own is changed in place")

			owned := UpdatePathAttrs(logger, g, info, path)
			result, sent := policy.Apply(logger, owned, &PolicyOptions{Info: info, Owned: owned})
			require.Equal(t, ROUTE_TYPE_ACCEPT, result)
			require.Same(t, owned, sent, "the policy cloned the copy it was given to change")
			require.Equal(t, serializedAttrs(t, cloned), serializedAttrs(t, sent))
			med, err := sent.GetMed()
			require.NoError(t, err)
			require.Equal(t, uint32(50), med)

			// The path in the table, given with another path owned, is cloned.
			result, other := policy.Apply(logger, path, &PolicyOptions{Info: info, Owned: owned})
			require.Equal(t, ROUTE_TYPE_ACCEPT, result)
			require.NotSame(t, path, other)
			require.Equal(t, inTable, serializedAttrs(t, path), "the path in the table changed")
		})
	}
}
