// Package gobgpapi converts between GoBGP's API and the speaker model (internal/bgp),
// for the adapter and for the test router of internal/testing/gobgptest alike.
package gobgpapi

import (
	api "github.com/osrg/gobgp/v4/api"

	"kbgp.io/kbgp/internal/bgp"
)

// Family is the GoBGP unicast family of f.
func Family(f bgp.Family) *api.Family {
	if f == bgp.FamilyIPv6Unicast {
		return &api.Family{Afi: api.Family_AFI_IP6, Safi: api.Family_SAFI_UNICAST}
	}
	return &api.Family{Afi: api.Family_AFI_IP, Safi: api.Family_SAFI_UNICAST}
}

// SessionState is GoBGP's session state in the speaker model.
func SessionState(s api.PeerState_SessionState) bgp.SessionState {
	switch s {
	case api.PeerState_SESSION_STATE_CONNECT:
		return bgp.StateConnect
	case api.PeerState_SESSION_STATE_ACTIVE:
		return bgp.StateActive
	case api.PeerState_SESSION_STATE_OPENSENT:
		return bgp.StateOpenSent
	case api.PeerState_SESSION_STATE_OPENCONFIRM:
		return bgp.StateOpenConfirm
	case api.PeerState_SESSION_STATE_ESTABLISHED:
		return bgp.StateEstablished
	default:
		return bgp.StateIdle
	}
}
