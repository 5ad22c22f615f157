package gobgp

import (
	api "github.com/osrg/gobgp/v4/api"

	"kbgp.io/kbgp/internal/bgp"
)

// toAPIPeer converts a peer to GoBGP's form. Graceful restart goes on every family the
// peer runs and nowhere else; restart deferral stays off, so the first UPDATEs to a peer
// are never held back waiting for End-of-RIB.
func toAPIPeer(p bgp.Peer) *api.Peer {
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
	if p.EBGPMultihopTTL > 1 {
		out.EbgpMultihop = &api.EbgpMultihop{Enabled: true, MultihopTtl: uint32(p.EBGPMultihopTTL)}
	}
	if p.GracefulRestart.Enabled {
		out.GracefulRestart = &api.GracefulRestart{
			Enabled:     true,
			RestartTime: uint32(p.GracefulRestart.RestartTime.Seconds()),
		}
	}
	for _, f := range p.Families {
		afi := &api.AfiSafi{Config: &api.AfiSafiConfig{Family: apiFamily(f), Enabled: true}}
		if limit, ok := p.MaxPrefixes[f]; ok {
			afi.PrefixLimits = &api.PrefixLimit{Family: apiFamily(f), MaxPrefixes: limit}
		}
		if p.GracefulRestart.Enabled {
			afi.MpGracefulRestart = &api.MpGracefulRestart{Config: &api.MpGracefulRestartConfig{Enabled: true}}
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

func apiFamily(f bgp.Family) *api.Family {
	if f == bgp.FamilyIPv6Unicast {
		return &api.Family{Afi: api.Family_AFI_IP6, Safi: api.Family_SAFI_UNICAST}
	}
	return &api.Family{Afi: api.Family_AFI_IP, Safi: api.Family_SAFI_UNICAST}
}
