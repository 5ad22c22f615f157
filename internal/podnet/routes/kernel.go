package routes

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"

	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"
)

// podRouteProtocol marks the kernel routes kbgp installs, pod routes and imported
// ones alike (the rtnetlink protocol, as
// zebra's 186 or bird's 12), so it lists and removes exactly its own. Add "210 kbgp"
// to /etc/iproute2/rt_protos.d to see the name in `ip route`.
const podRouteProtocol = 210

// errForeignRoute: the table has a route to the prefix that kbgp did not install.
var errForeignRoute = errors.New("a route kbgp did not install is in the way")

// Kernel is the main routing table, as far as kbgp's routes go.
type Kernel interface {
	// Replace installs prefix via nextHops (one multipath route when several),
	// replacing kbgp's route to it; it fails with errForeignRoute, changing nothing,
	// where another route to prefix is there. A link-local next hop is zoned with its
	// interface; an IPv6 next hop of an IPv4 prefix goes as RTA_VIA (RFC 8950).
	Replace(prefix netip.Prefix, nextHops []netip.Addr) error
	// Delete removes kbgp's route to prefix.
	Delete(prefix netip.Prefix) error
	// List returns kbgp's routes in the table: their next hops by prefix.
	List() (map[netip.Prefix][]netip.Addr, error)
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
func (k netlinkRoutes) Replace(prefix netip.Prefix, nextHops []netip.Addr) error {
	r := &netlink.Route{Dst: ipNet(prefix), Protocol: podRouteProtocol, Table: unix.RT_TABLE_MAIN}
	for _, nh := range nextHops {
		info, err := k.nextHop(prefix, nh)
		if err != nil {
			return fmt.Errorf("install route %s via %s: %w", prefix, nh, err)
		}
		r.MultiPath = append(r.MultiPath, info)
	}
	if len(r.MultiPath) == 1 {
		// One next hop is a plain route, as `ip route` writes it.
		r.Gw, r.Via, r.LinkIndex, r.MultiPath = r.MultiPath[0].Gw, r.MultiPath[0].Via, r.MultiPath[0].LinkIndex, nil
	}
	existing, err := k.h.RouteListFiltered(netlink.FAMILY_ALL, &netlink.Route{Dst: r.Dst, Table: unix.RT_TABLE_MAIN}, netlink.RT_FILTER_DST|netlink.RT_FILTER_TABLE)
	if err != nil {
		return fmt.Errorf("install route %s via %s: list the routes to it: %w", prefix, nextHops, err)
	}
	for _, e := range existing {
		if e.Protocol != podRouteProtocol {
			return fmt.Errorf("install route %s via %s: %w (protocol %s)", prefix, nextHops, errForeignRoute, e.Protocol)
		}
	}
	install := k.h.RouteReplace
	if len(existing) == 0 {
		install = k.h.RouteAdd
	}
	if err := install(r); errors.Is(err, unix.EEXIST) {
		return fmt.Errorf("install route %s via %s: %w", prefix, nextHops, errForeignRoute)
	} else if err != nil {
		return fmt.Errorf("install route %s via %s: %w", prefix, nextHops, err)
	}
	return nil
}

// nextHop is nh as a next hop of a route to prefix: a gateway, or RTA_VIA for an IPv6
// next hop of an IPv4 prefix; on the interface its zone names.
func (k netlinkRoutes) nextHop(prefix netip.Prefix, nh netip.Addr) (*netlink.NexthopInfo, error) {
	info := &netlink.NexthopInfo{}
	if zone := nh.Zone(); zone != "" {
		link, err := k.h.LinkByName(zone)
		if err != nil {
			return nil, fmt.Errorf("next hop interface %s: %w", zone, err)
		}
		info.LinkIndex = link.Attrs().Index
	}
	ip := net.IP(nh.WithZone("").AsSlice())
	if prefix.Addr().Is4() && nh.Is6() {
		info.Via = &netlink.Via{AddrFamily: netlink.FAMILY_V6, Addr: ip}
	} else {
		info.Gw = ip
	}
	return info, nil
}

func (k netlinkRoutes) Delete(prefix netip.Prefix) error {
	r := &netlink.Route{Dst: ipNet(prefix), Protocol: podRouteProtocol, Table: unix.RT_TABLE_MAIN}
	if err := k.h.RouteDel(r); err != nil && !errors.Is(err, unix.ESRCH) {
		return fmt.Errorf("remove route %s: %w", prefix, err)
	}
	return nil
}

func (k netlinkRoutes) List() (map[netip.Prefix][]netip.Addr, error) {
	filter := &netlink.Route{Protocol: podRouteProtocol, Table: unix.RT_TABLE_MAIN}
	routes, err := k.h.RouteListFiltered(netlink.FAMILY_ALL, filter, netlink.RT_FILTER_PROTOCOL|netlink.RT_FILTER_TABLE)
	if err != nil {
		return nil, fmt.Errorf("list kbgp's routes: %w", err)
	}
	out := map[netip.Prefix][]netip.Addr{}
	for _, r := range routes {
		if r.Dst == nil {
			continue
		}
		ones, _ := r.Dst.Mask.Size()
		addr, ok := netip.AddrFromSlice(r.Dst.IP)
		if !ok {
			continue
		}
		paths := r.MultiPath
		if len(paths) == 0 {
			paths = []*netlink.NexthopInfo{{LinkIndex: r.LinkIndex, Gw: r.Gw, Via: r.Via}}
		}
		var via []netip.Addr
		for _, nh := range paths {
			via = append(via, k.listedNextHop(nh))
		}
		slices.SortFunc(via, netip.Addr.Compare)
		out[netip.PrefixFrom(addr.Unmap(), ones)] = via
	}
	return out, nil
}

// listedNextHop is a next hop read from the table, zoned as Replace takes it.
func (k netlinkRoutes) listedNextHop(nh *netlink.NexthopInfo) netip.Addr {
	ip := nh.Gw
	if v, ok := nh.Via.(*netlink.Via); ok && ip == nil {
		ip = v.Addr
	}
	addr, _ := netip.AddrFromSlice(ip)
	addr = addr.Unmap()
	if addr.Is6() && addr.IsLinkLocalUnicast() {
		if link, err := k.h.LinkByIndex(nh.LinkIndex); err == nil {
			addr = addr.WithZone(link.Attrs().Name)
		}
	}
	return addr
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
