package nodebgp

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"slices"

	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"
	"k8s.io/client-go/tools/record"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// EventDefaultGatewayNotFound is the Warning event reason on the BGPNodeConfig when a
// peer discovers its family's default gateway and the node has none.
const EventDefaultGatewayNotFound = "DefaultGatewayNotFound"

// defaultRoute is one default route of the main table: its gateways (several with
// ECMP; zoned when link-local) and its metric.
type defaultRoute struct {
	Gateways []netip.Addr
	Metric   int
}

// gatewayOf is the peer a DefaultGateway discovery runs to: of the default route with
// the lowest metric (the one the kernel uses), the lowest gateway address, so ECMP
// paths listed in another order do not move the session.
func gatewayOf(routes []defaultRoute) (netip.Addr, error) {
	var best *defaultRoute
	for i := range routes {
		if len(routes[i].Gateways) > 0 && (best == nil || routes[i].Metric < best.Metric) {
			best = &routes[i]
		}
	}
	if best == nil {
		return netip.Addr{}, errors.New("no default route with a gateway")
	}
	return slices.MinFunc(best.Gateways, func(a, b netip.Addr) int { return a.Compare(b) }), nil
}

// defaultGateways finds the gateways of the node's default routes for the peers that
// discover them.
type defaultGateways = addressDiscovery[kbgpv1.AFI, defaultRoute]

func newDefaultGateways(recorder record.EventRecorder, logger *slog.Logger, list func(kbgpv1.AFI) ([]defaultRoute, error)) *defaultGateways {
	return &defaultGateways{recorder: recorder, logger: logger, reason: EventDefaultGatewayNotFound, noun: "default gateway of",
		peers: gatewayPeers, list: list, pick: gatewayOf}
}

// gatewayPeers names the peers discovering each family's default gateway, as "peer
// NAME of instance ASN", in spec order.
func gatewayPeers(nc *kbgpv1.BGPNodeConfig) map[kbgpv1.AFI][]string {
	out := map[kbgpv1.AFI][]string{}
	for _, inst := range nc.Spec.BGPInstances {
		for _, p := range inst.Peers {
			if ad := p.AutoDiscovery; ad != nil && ad.Mode == kbgpv1.AutoDiscoveryDefaultGateway && ad.DefaultGateway != nil {
				afi := ad.DefaultGateway.AddressFamily
				out[afi] = append(out[afi], fmt.Sprintf("peer %s of instance %d", p.Name, inst.LocalASN))
			}
		}
	}
	return out
}

// kernelDefaultRoutes lists the default routes of the main table of a family.
func kernelDefaultRoutes(afi kbgpv1.AFI) ([]defaultRoute, error) {
	family := netlink.FAMILY_V4
	if afi == kbgpv1.AFIIPv6 {
		family = netlink.FAMILY_V6
	}
	routes, err := netlink.RouteListFiltered(family, &netlink.Route{Table: unix.RT_TABLE_MAIN}, netlink.RT_FILTER_TABLE)
	if err != nil {
		return nil, fmt.Errorf("list routes: %w", err)
	}
	var out []defaultRoute
	for _, r := range routes {
		if !isDefault(r.Dst) {
			continue
		}
		d := defaultRoute{Metric: r.Priority}
		if gw, ok := gateway(r.Gw, r.LinkIndex); ok {
			d.Gateways = append(d.Gateways, gw)
		}
		for _, nh := range r.MultiPath {
			if gw, ok := gateway(nh.Gw, nh.LinkIndex); ok {
				d.Gateways = append(d.Gateways, gw)
			}
		}
		out = append(out, d)
	}
	return out, nil
}

// isDefault says whether dst is a default route's destination (netlink gives nil or
// the zero prefix).
func isDefault(dst *net.IPNet) bool {
	if dst == nil {
		return true
	}
	ones, _ := dst.Mask.Size()
	return ones == 0 && dst.IP.IsUnspecified()
}

// gateway is ip as a gateway on link, zoned with the link's name when link-local.
func gateway(ip net.IP, link int) (netip.Addr, bool) {
	addr, ok := netip.AddrFromSlice(ip)
	if !ok || addr.IsUnspecified() {
		return netip.Addr{}, false
	}
	addr = addr.Unmap()
	if addr.IsLinkLocalUnicast() {
		ifi, err := net.InterfaceByIndex(link)
		if err != nil {
			return netip.Addr{}, false
		}
		addr = addr.WithZone(ifi.Name)
	}
	return addr, true
}
