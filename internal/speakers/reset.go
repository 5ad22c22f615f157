package speakers

import (
	"maps"
	"slices"

	"kbgp.io/kbgp/internal/bgp"
)

// sessionResetReason says why changing a peer from old to new needs a new session, or
// "" when the change applies to the running one. Everything carried in the OPEN message
// (ASN, hold time, capabilities: families, graceful restart and ADD-PATH) or fixed when the TCP
// connection is made (addresses, ports, TTL, MD5 key, bound device) needs a new session.
// Connect-retry and keepalive intervals are local timers: the new values apply without
// a reset (the keepalive interval from the next session on, since it is fixed when the
// session opens). Route reflection is local as well: a mesh node changing role keeps its
// sessions.
func sessionResetReason(old, new bgp.Peer) string {
	switch {
	case old.Address != new.Address:
		return "peer address changed"
	case old.ASN != new.ASN, old.DynamicASN != new.DynamicASN:
		return "peer ASN changed"
	case old.Port != new.Port:
		return "peer port changed"
	case old.LocalAddress != new.LocalAddress:
		return "local address changed"
	case old.LocalPort != new.LocalPort:
		return "local port changed"
	case old.Timers.HoldTime != new.Timers.HoldTime:
		return "hold time changed"
	case multihop(old) != multihop(new):
		return "eBGP multihop changed"
	case old.GracefulRestart != new.GracefulRestart:
		return "graceful restart changed"
	case !sameFamilies(old.Families, new.Families):
		return "address families changed"
	case !maps.Equal(old.AddPathsSend, new.AddPathsSend):
		return "ADD-PATH changed"
	case old.Password != new.Password:
		return "TCP MD5 password changed"
	case old.BindDevice != new.BindDevice:
		return "VRF changed"
	case old.Passive != new.Passive:
		return "passive mode changed"
	}
	return ""
}

// multihop normalises "directly connected": a TTL of 0 and of 1 are the same session.
func multihop(p bgp.Peer) uint8 {
	if p.EBGPMultihopTTL <= 1 {
		return 1
	}
	return p.EBGPMultihopTTL
}

func sameFamilies(a, b []bgp.Family) bool {
	set := func(fs []bgp.Family) []bgp.Family {
		m := map[bgp.Family]bool{}
		for _, f := range fs {
			m[f] = true
		}
		return slices.Sorted(maps.Keys(m))
	}
	return slices.Equal(set(a), set(b))
}
