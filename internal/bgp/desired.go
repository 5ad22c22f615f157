package bgp

import (
	"net/netip"
	"time"
)

// Desired is the whole BGP state one node must run: what intent.Build computes from
// the API and speakers.Set.Apply makes true.
type Desired struct {
	Instances map[InstanceKey]DesiredInstance
}

// DesiredInstance is one speaker with its peers, each with what it is sent.
type DesiredInstance struct {
	Global Global
	// Peers by name.
	Peers map[string]DesiredPeer
	// BMP are the collectors the speaker streams to.
	BMP []BMPCollector
}

// DesiredPeer is a peer with the prefixes it is sent and the attributes each carries
// to this peer.
type DesiredPeer struct {
	Peer
	Export map[netip.Prefix]PathAttributes
}

// ExportChange is a change to one peer's export, as a Service event produces it, with
// the peer named by speaker and name: Set are prefixes the peer is now sent, or sent
// with other attributes; Remove are prefixes it is no longer sent. The speaker set
// turns it into the PeerExportChange of that speaker's Router.
type ExportChange struct {
	Instance InstanceKey
	Peer     string
	Set      []Path
	Remove   []netip.Prefix
}

// LongestRestartTime is the longest graceful-restart time of d's peers, long-lived
// stale time included: how long after a speaker went away its routers may still hold
// its routes. Zero when no peer has graceful restart.
func (d Desired) LongestRestartTime() time.Duration {
	var longest time.Duration
	for _, inst := range d.Instances {
		for _, p := range inst.Peers {
			if p.GracefulRestart.Enabled {
				longest = max(longest, p.GracefulRestart.RestartTime+p.GracefulRestart.LongLivedStaleTime)
			}
		}
	}
	return longest
}
