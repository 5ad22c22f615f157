package nodebgp

import (
	"net"
	"net/netip"
	"slices"
)

// interfaceAddresses reads the addresses of each of ifaces in the agent's network
// namespace (the node's), sorted; an interface that does not exist is left out.
func interfaceAddresses(ifaces []string) map[string][]netip.Addr {
	out := map[string][]netip.Addr{}
	for _, name := range ifaces {
		ifi, err := net.InterfaceByName(name)
		if err != nil {
			continue
		}
		addrs, err := ifi.Addrs()
		if err != nil {
			continue
		}
		list := []netip.Addr{}
		for _, a := range addrs {
			if p, err := netip.ParsePrefix(a.String()); err == nil {
				list = append(list, p.Addr())
			}
		}
		slices.SortFunc(list, netip.Addr.Compare)
		out[name] = list
	}
	return out
}
