package intent

import "kbgp.io/kbgp/internal/bgp"

// BandwidthPerEndpoint is the link bandwidth a node announces per ready local endpoint
// of a Service with weighted ECMP: 125000 bytes/s, 1 Mbit/s. Routers weigh the paths
// of a multipath route by the ratio of their bandwidths, so only the ratio matters;
// whole megabits keep the value exact in every router's display (FRR shows Mbps).
const BandwidthPerEndpoint = 125000

// maxWeightedEndpoints caps the endpoint count a bandwidth is computed from, so that
// the bandwidth fits in 32 bits (GoBGP reads it as an unsigned 32-bit number).
const maxWeightedEndpoints = (1<<32 - 1) / BandwidthPerEndpoint

// linkBandwidth is what a node announces, with weighted ECMP, for an address with
// localEndpoints ready endpoints on the node: their count in units of
// BandwidthPerEndpoint when the address's traffic policy is Local (nodeLocal), so
// the traffic each node gets follows its share of the endpoints; one unit otherwise,
// as every node forwards to every endpoint then (equal weights). A Local address
// without a ready endpoint on the node is not announced at all.
func linkBandwidth(asn uint32, nodeLocal bool, localEndpoints int) bgp.LinkBandwidth {
	units := 1
	if nodeLocal {
		units = min(max(localEndpoints, 0), maxWeightedEndpoints)
	}
	return bgp.LinkBandwidth{ASN: asn, BytesPerSecond: uint32(units) * BandwidthPerEndpoint}
}

// weightedAttributes gives the rule's attributes with the link bandwidth of one
// address, shared by every address of the same bandwidth (a rule's addresses carry a
// handful of distinct bandwidths, so the attribute sets stay shared as they are
// without weighted ECMP).
func (r *serviceRule) weightedAttributes(lb bgp.LinkBandwidth) *bgp.PathAttributes {
	if a, ok := r.weighted[lb.BytesPerSecond]; ok {
		return a
	}
	a := r.attrs
	a.LinkBandwidth = lb
	r.weighted[lb.BytesPerSecond] = &a
	return &a
}
