package gobgp

import (
	"time"

	api "github.com/osrg/gobgp/v4/api"

	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/bgp/gobgp/gobgpapi"
)

// toAPIPeer converts a peer to GoBGP's form. Graceful restart goes on every family the
// peer runs and nowhere else. Normally restart deferral stays off, so the first UPDATEs
// to a peer are never held back waiting for End-of-RIB. When the speaker restarts
// after a graceful stop (restarting), a peer with graceful restart is a restarting
// peer (RFC 4724): GoBGP sets the Restart State bit and, per family, the Forwarding
// State bit in its OPEN, so the router keeps the stale routes instead of flushing them,
// and sends the table with End-of-RIB once the routers' End-of-RIBs are in — or, with
// a router that does not answer, after the deferral time, kept well inside the
// routers' restart time.
func toAPIPeer(p bgp.Peer, restarting bool) *api.Peer {
	out := &api.Peer{
		Conf: &api.PeerConf{
			NeighborAddress: p.Address.String(),
			PeerAsn:         p.ASN,
			AuthPassword:    string(p.Password),
		},
		Timers: &api.Timers{Config: &api.TimersConfig{
			ConnectRetry:      uint64(p.Timers.ConnectRetry.Seconds()),
			HoldTime:          uint64(p.Timers.HoldTime.Seconds()),
			KeepaliveInterval: uint64(p.Timers.Keepalive.Seconds()),
		}},
		Transport: &api.Transport{
			RemotePort:    uint32(p.Port),
			LocalPort:     uint32(p.LocalPort),
			BindInterface: p.BindDevice,
		},
	}
	if p.LocalAddress.IsValid() {
		out.Transport.LocalAddress = p.LocalAddress.String()
	}
	switch p.DynamicASN {
	case bgp.ASNExternal:
		out.Conf.Type = api.PeerType_PEER_TYPE_EXTERNAL
	case bgp.ASNInternal:
		out.Conf.Type = api.PeerType_PEER_TYPE_INTERNAL
	}
	out.Transport.PassiveMode = p.Passive
	if p.RouteReflectorClient {
		out.RouteReflector = &api.RouteReflector{RouteReflectorClient: true, RouteReflectorClusterId: p.RouteReflectorClusterID.String()}
	}
	if p.EBGPMultihopTTL > 1 {
		out.EbgpMultihop = &api.EbgpMultihop{Enabled: true, MultihopTtl: uint32(p.EBGPMultihopTTL)}
	}
	if p.GracefulRestart.Enabled {
		out.GracefulRestart = &api.GracefulRestart{
			Enabled:          true,
			RestartTime:      uint32(p.GracefulRestart.RestartTime.Seconds()),
			LonglivedEnabled: p.GracefulRestart.LongLivedStaleTime > 0,
		}
		if restarting {
			out.GracefulRestart.LocalRestarting = true
			out.GracefulRestart.DeferralTime = uint32(deferralTime(p.GracefulRestart.RestartTime).Seconds())
		}
	}
	if p.BFD.Enabled {
		// GoBGP takes BFD intervals in microseconds, as they are on the wire.
		out.Bfd = &api.BfdPeerConfig{
			Enabled:                  true,
			DesiredMinimumTxInterval: uint32(p.BFD.MinTx.Microseconds()),
			RequiredMinimumReceive:   uint32(p.BFD.MinRx.Microseconds()),
			DetectionMultiplier:      uint32(p.BFD.DetectMultiplier),
		}
	}
	for _, f := range p.Families {
		afi := &api.AfiSafi{Config: &api.AfiSafiConfig{Family: gobgpapi.Family(f), Enabled: true}}
		if limit, ok := p.MaxPrefixes[f]; ok {
			afi.PrefixLimits = &api.PrefixLimit{Family: gobgpapi.Family(f), MaxPrefixes: limit}
		}
		if n := p.AddPathsSend[f]; n > 0 {
			afi.AddPaths = &api.AddPaths{Config: &api.AddPathsConfig{SendMax: uint32(n)}}
		}
		if p.GracefulRestart.Enabled {
			afi.MpGracefulRestart = &api.MpGracefulRestart{Config: &api.MpGracefulRestartConfig{Enabled: true}}
		}
		if llst := p.GracefulRestart.LongLivedStaleTime; p.GracefulRestart.Enabled && llst > 0 {
			afi.LongLivedGracefulRestart = &api.LongLivedGracefulRestart{Config: &api.LongLivedGracefulRestartConfig{
				Enabled: true, RestartTime: uint32(llst.Seconds())}}
		}
		out.AfiSafis = append(out.AfiSafis, afi)
	}
	return out
}

// familyOf is apiFamily's inverse for the two families kbgp configures.
func familyOf(f *api.Family) bgp.Family {
	if f.GetAfi() == api.Family_AFI_IP6 {
		return bgp.FamilyIPv6Unicast
	}
	return bgp.FamilyIPv4Unicast
}

// deferralTime is how long a restarting speaker waits for the routers' End-of-RIBs
// before it sends its table anyway: half the restart time, at most a minute, so the
// table arrives long before any router's restart timer flushes the stale routes.
func deferralTime(restart time.Duration) time.Duration {
	return max(min(restart/2, time.Minute), time.Second)
}
