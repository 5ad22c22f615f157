package gobgp

import (
	api "github.com/osrg/gobgp/v4/api"

	"kbgp.io/kbgp/internal/bgp"
)

// addPathsSendNegotiated returns the families of an established peer in which
// ADD-PATH send is in effect: configured here (a send max) and received by the peer,
// whose OPEN offers ADD-PATH receive for the family (RFC 7911 section 4). GoBGP's peer
// listing carries only the configuration, so the negotiation is redone here from the
// peer's capabilities, as GoBGP does it.
func addPathsSendNegotiated(p *api.Peer) map[bgp.Family]bool {
	var out map[bgp.Family]bool
	for _, afi := range p.GetAfiSafis() {
		if afi.GetAddPaths().GetConfig().GetSendMax() == 0 {
			continue
		}
		fam := afi.GetConfig().GetFamily()
		if !peerReceivesAddPaths(p.GetState().GetRemoteCap(), fam) {
			continue
		}
		if out == nil {
			out = map[bgp.Family]bool{}
		}
		out[familyOf(fam)] = true
	}
	return out
}

// peerReceivesAddPaths reports whether the capabilities offer ADD-PATH receive for fam.
func peerReceivesAddPaths(caps []*api.Capability, fam *api.Family) bool {
	for _, c := range caps {
		for _, tu := range c.GetAddPath().GetTuples() {
			receives := tu.GetMode() == api.AddPathCapabilityTuple_MODE_RECEIVE || tu.GetMode() == api.AddPathCapabilityTuple_MODE_BOTH
			if receives && tu.GetFamily().GetAfi() == fam.GetAfi() && tu.GetFamily().GetSafi() == fam.GetSafi() {
				return true
			}
		}
	}
	return false
}
