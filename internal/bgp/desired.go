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

// ExportChange is a change to what one peer of a speaker is sent, the peer named by
// its address (unique within a speaker): Set are prefixes it is now sent, or sent with
// other attributes; Remove are prefixes it is no longer sent. A Service event yields
// ExportChanges, the speaker set hands each speaker's to its Router.
type ExportChange struct {
	Peer   netip.Addr
	Set    []Path
	Remove []netip.Prefix
}

// ExportChanges are export changes grouped by the speaker whose peers they change.
type ExportChanges map[InstanceKey][]ExportChange

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
