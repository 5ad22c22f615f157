package bgp

import "net/netip"

// Desired is the whole BGP state one node must run: what intent.Build computes from
// the API and manager.Apply makes true.
type Desired struct {
	Instances map[InstanceKey]DesiredInstance
}

// DesiredInstance is one speaker with its peers and originated paths.
type DesiredInstance struct {
	Global Global
	// Peers by name.
	Peers map[string]DesiredPeer
	// Paths are the originated paths by prefix, with the attributes they carry.
	Paths map[netip.Prefix]PathAttributes
}

// DesiredPeer is a peer with the prefixes it is sent (each of which is in Paths).
type DesiredPeer struct {
	Peer
	Export map[netip.Prefix]struct{}
}
