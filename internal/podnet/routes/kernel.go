package routes

import (
	"errors"
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

// errForeignRoute: the table has a route to the prefix that kbgp did not install.
var errForeignRoute = errors.New("a route kbgp did not install is in the way")

// Kernel is the main routing table, as far as the pod routes go.
type Kernel interface {
	// Replace installs prefix via nextHop, replacing kbgp's route to it; it fails with
	// errForeignRoute, changing nothing, where another route to prefix is there.
	Replace(prefix netip.Prefix, nextHop netip.Addr) error
	// Delete removes kbgp's route to prefix.
	Delete(prefix netip.Prefix) error
	// List returns kbgp's routes in the table, by prefix.
	List() (map[netip.Prefix]netip.Addr, error)
	// LocalAddresses are the node's addresses, with their prefix lengths.
	LocalAddresses() ([]netip.Prefix, error)
}

// Netlink is the Kernel of the agent's own network namespace.
func Netlink() Kernel { return netlinkRoutes{h: &netlink.Handle{}} }

// netlinkRoutes is Kernel in the namespace of its handle (the zero Handle: the
// agent's own).
type netlinkRoutes struct {
	h *netlink.Handle
}

// Replace adds the route when the table has none to prefix (exclusively, so one that
// appears meanwhile is not overwritten), and replaces it only when the route there is
// kbgp's: a connected route or another daemon's is never taken over, which would leave
// no route at all once kbgp removes its own.
func (k netlinkRoutes) Replace(prefix netip.Prefix, nextHop netip.Addr) error {
	r := &netlink.Route{Dst: ipNet(prefix), Gw: net.IP(nextHop.AsSlice()), Protocol: podRouteProtocol, Table: unix.RT_TABLE_MAIN}
	existing, err := k.h.RouteListFiltered(netlink.FAMILY_ALL, &netlink.Route{Dst: r.Dst, Table: unix.RT_TABLE_MAIN}, netlink.RT_FILTER_DST|netlink.RT_FILTER_TABLE)
	if err != nil {
		return fmt.Errorf("install route %s via %s: list the routes to it: %w", prefix, nextHop, err)
	}
	for _, e := range existing {
		if e.Protocol != podRouteProtocol {
			return fmt.Errorf("install route %s via %s: %w (protocol %s)", prefix, nextHop, errForeignRoute, e.Protocol)
		}
	}
	install := k.h.RouteReplace
	if len(existing) == 0 {
		install = k.h.RouteAdd
	}
	if err := install(r); errors.Is(err, unix.EEXIST) {
		return fmt.Errorf("install route %s via %s: %w", prefix, nextHop, errForeignRoute)
	} else if err != nil {
		return fmt.Errorf("install route %s via %s: %w", prefix, nextHop, err)
	}
	return nil
}

func (k netlinkRoutes) Delete(prefix netip.Prefix) error {
	r := &netlink.Route{Dst: ipNet(prefix), Protocol: podRouteProtocol, Table: unix.RT_TABLE_MAIN}
	if err := k.h.RouteDel(r); err != nil && !errors.Is(err, unix.ESRCH) {
		return fmt.Errorf("remove route %s: %w", prefix, err)
	}
	return nil
}

func (k netlinkRoutes) List() (map[netip.Prefix]netip.Addr, error) {
	filter := &netlink.Route{Protocol: podRouteProtocol, Table: unix.RT_TABLE_MAIN}
	routes, err := k.h.RouteListFiltered(netlink.FAMILY_ALL, filter, netlink.RT_FILTER_PROTOCOL|netlink.RT_FILTER_TABLE)
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

func (k netlinkRoutes) LocalAddresses() ([]netip.Prefix, error) {
	addrs, err := k.h.AddrList(nil, netlink.FAMILY_ALL)
	if err != nil {
		return nil, fmt.Errorf("list the node's addresses: %w", err)
	}
	out := make([]netip.Prefix, 0, len(addrs))
	for _, a := range addrs {
		ip, ok := netip.AddrFromSlice(a.IP)
		if !ok || a.IPNet == nil {
			continue
		}
		ones, _ := a.Mask.Size()
		out = append(out, netip.PrefixFrom(ip.Unmap(), ones))
	}
	return out, nil
}

func ipNet(p netip.Prefix) *net.IPNet {
	return &net.IPNet{IP: net.IP(p.Addr().AsSlice()), Mask: net.CIDRMask(p.Bits(), p.Addr().BitLen())}
}
