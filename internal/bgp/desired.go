package bgp

import "net/netip"

// Desired is the whole BGP state one node must run: what intent.Build computes from
// the API and manager.Apply makes true.
type Desired struct {
	Instances map[InstanceKey]DesiredInstance
}

// DesiredInstance is one speaker with its peers. The speaker originates every prefix
// some peer exports (see Originated), once and without attributes; each peer's export
// says which of them it gets and with which attributes.
type DesiredInstance struct {
	Global Global
	// Peers by name.
	Peers map[string]DesiredPeer
}

// DesiredPeer is a peer with the prefixes it is sent and the attributes each carries
// to this peer.
type DesiredPeer struct {
	Peer
	Export map[netip.Prefix]PathAttributes
}

// Originated is the set of prefixes the speaker must originate: the union of its
// peers' exports.
func (d DesiredInstance) Originated() map[netip.Prefix]struct{} {
	out := map[netip.Prefix]struct{}{}
	for _, p := range d.Peers {
		for pfx := range p.Export {
			out[pfx] = struct{}{}
		}
	}
	return out
}

// ExportChange is a change to one peer's export, as a Service event produces it: Set
// are prefixes the peer is now sent, or sent with other attributes; Remove are
// prefixes it is no longer sent.
type ExportChange struct {
	Instance InstanceKey
	Peer     string
	Set      []Path
	Remove   []netip.Prefix
}
