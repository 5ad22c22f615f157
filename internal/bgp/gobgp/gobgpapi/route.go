package gobgpapi

import (
	"net/netip"

	"github.com/osrg/gobgp/v4/pkg/apiutil"
	gobgppacket "github.com/osrg/gobgp/v4/pkg/packet/bgp"

	"kbgp.io/kbgp/internal/bgp"
)

// origins names the ORIGIN attribute's values.
var origins = map[uint8]bgp.Origin{
	gobgppacket.BGP_ORIGIN_ATTR_TYPE_IGP:        bgp.OriginIGP,
	gobgppacket.BGP_ORIGIN_ATTR_TYPE_EGP:        bgp.OriginEGP,
	gobgppacket.BGP_ORIGIN_ATTR_TYPE_INCOMPLETE: bgp.OriginIncomplete,
}

// Route reads the attributes kbgp sets, plus next hop, AS path and origin, from a
// path of neighbor's Adj-RIB.
func Route(neighbor netip.Addr, prefix netip.Prefix, p *apiutil.Path) bgp.ReceivedRoute {
	r := bgp.ReceivedRoute{Neighbor: neighbor, Prefix: prefix}
	for _, a := range p.Attrs {
		switch v := a.(type) {
		case *gobgppacket.PathAttributeOrigin:
			r.Origin = origins[v.Value]
		case *gobgppacket.PathAttributeNextHop:
			r.NextHop = v.Value
		case *gobgppacket.PathAttributeMpReachNLRI:
			r.NextHop = v.Nexthop
		case *gobgppacket.PathAttributeAsPath:
			for _, seg := range v.Value {
				r.ASPath = append(r.ASPath, seg.GetAS()...)
			}
		case *gobgppacket.PathAttributeCommunities:
			r.Attributes.Communities = v.Value
		case *gobgppacket.PathAttributeLargeCommunities:
			for _, c := range v.Values {
				r.Attributes.LargeCommunities = append(r.Attributes.LargeCommunities,
					bgp.LargeCommunity{GlobalAdmin: c.ASN, LocalData1: c.LocalData1, LocalData2: c.LocalData2})
			}
		case *gobgppacket.PathAttributeLocalPref:
			lp := v.Value
			r.Attributes.LocalPreference = &lp
		case *gobgppacket.PathAttributeMultiExitDisc:
			med := v.Value
			r.Attributes.MED = &med
		case *gobgppacket.PathAttributeExtendedCommunities:
			for _, c := range v.Value {
				if lb, ok := c.(*gobgppacket.LinkBandwidthExtended); ok {
					r.Attributes.LinkBandwidth = bgp.LinkBandwidth{ASN: uint32(lb.AS), BytesPerSecond: uint32(lb.Bandwidth)}
				}
			}
		}
	}
	return r
}
