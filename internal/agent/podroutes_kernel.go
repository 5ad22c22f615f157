package agent

import (
	"fmt"
	"net"
	"net/netip"

	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"
)

// podRouteProtocol marks the kernel routes kbgp installs (the rtnetlink protocol, as
// zebra's 186 or bird's 12), so it lists and removes exactly its own. Add "210 kbgp"
// to /etc/iproute2/rt_protos.d to see the name in `ip route`.
const podRouteProtocol = 210

// kernelRoutes is the main routing table, as far as the pod routes go.
type kernelRoutes interface {
	// Replace installs prefix via nextHop, replacing what was there.
	Replace(prefix netip.Prefix, nextHop netip.Addr) error
	// Delete removes kbgp's route to prefix.
	Delete(prefix netip.Prefix) error
	// List returns kbgp's routes in the table, by prefix.
	List() (map[netip.Prefix]netip.Addr, error)
}

// netlinkRoutes is kernelRoutes in the agent's network namespace.
type netlinkRoutes struct{}

func (netlinkRoutes) Replace(prefix netip.Prefix, nextHop netip.Addr) error {
	r := &netlink.Route{Dst: ipNet(prefix), Gw: net.IP(nextHop.AsSlice()), Protocol: podRouteProtocol, Table: unix.RT_TABLE_MAIN}
	if err := netlink.RouteReplace(r); err != nil {
		return fmt.Errorf("install route %s via %s: %w", prefix, nextHop, err)
	}
	return nil
}

func (netlinkRoutes) Delete(prefix netip.Prefix) error {
	r := &netlink.Route{Dst: ipNet(prefix), Protocol: podRouteProtocol, Table: unix.RT_TABLE_MAIN}
	if err := netlink.RouteDel(r); err != nil && err != unix.ESRCH {
		return fmt.Errorf("remove route %s: %w", prefix, err)
	}
	return nil
}

func (netlinkRoutes) List() (map[netip.Prefix]netip.Addr, error) {
	filter := &netlink.Route{Protocol: podRouteProtocol, Table: unix.RT_TABLE_MAIN}
	routes, err := netlink.RouteListFiltered(netlink.FAMILY_ALL, filter, netlink.RT_FILTER_PROTOCOL|netlink.RT_FILTER_TABLE)
	if err != nil {
		return nil, fmt.Errorf("list kbgp's routes: %w", err)
	}
	out := map[netip.Prefix]netip.Addr{}
	for _, r := range routes {
		if r.Dst == nil {
			continue
		}
		ones, _ := r.Dst.Mask.Size()
		addr, ok := netip.AddrFromSlice(r.Dst.IP)
		gw, _ := netip.AddrFromSlice(r.Gw)
		if ok {
			out[netip.PrefixFrom(addr.Unmap(), ones)] = gw.Unmap()
		}
	}
	return out, nil
}

func ipNet(p netip.Prefix) *net.IPNet {
	return &net.IPNet{IP: net.IP(p.Addr().AsSlice()), Mask: net.CIDRMask(p.Bits(), p.Addr().BitLen())}
}
