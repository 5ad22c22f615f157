package nodebgp

import (
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/record"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/sanitize"
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
// discover them, and reports the families without one. Only the reconciler goroutine
// uses it.
type defaultGateways struct {
	recorder record.EventRecorder
	logger   *slog.Logger
	// list returns the default routes of the main table of a family (the kernel's; a
	// test's own).
	list func(kbgpv1.AFI) ([]defaultRoute, error)
	// missing is the result of the last check; a family reported there is not
	// reported again until a gateway was found in between.
	missing map[kbgpv1.AFI]struct{}
}

// check returns the gateway of every family nc's peers discover, and records a Warning
// event and a log line for each family that had one (or was not checked) at the last
// check and has none now.
func (d *defaultGateways) check(nc *kbgpv1.BGPNodeConfig) map[kbgpv1.AFI]netip.Addr {
	peers := gatewayPeers(nc)
	found, errs := resolveGateways(d.list, peers)
	missing := map[kbgpv1.AFI]struct{}{}
	for _, afi := range slices.Sorted(maps.Keys(errs)) {
		missing[afi] = struct{}{}
		if _, known := d.missing[afi]; known {
			continue
		}
		msg := fmt.Sprintf("%s default gateway: %v; not started: %s", afi, errs[afi], sanitize.Line(strings.Join(peers[afi], ", ")))
		d.logger.Warn("no default gateway", "family", afi, "error", errs[afi], "peers", peers[afi])
		if d.recorder != nil {
			d.recorder.Event(nc, corev1.EventTypeWarning, EventDefaultGatewayNotFound, msg)
		}
	}
	d.missing = missing
	return found
}

// retryAfter is when the families without a default gateway are looked at again; 0
// when each has one.
func (d *defaultGateways) retryAfter() time.Duration {
	if len(d.missing) == 0 {
		return 0
	}
	return deviceRecheckInterval
}

// resolveGateways finds the gateway of each family of peers, or why there is none.
func resolveGateways(list func(kbgpv1.AFI) ([]defaultRoute, error), peers map[kbgpv1.AFI][]string) (map[kbgpv1.AFI]netip.Addr, map[kbgpv1.AFI]error) {
	found, errs := map[kbgpv1.AFI]netip.Addr{}, map[kbgpv1.AFI]error{}
	for afi := range peers {
		routes, err := list(afi)
		var gw netip.Addr
		if err == nil {
			gw, err = gatewayOf(routes)
		}
		if err != nil {
			errs[afi] = err
			continue
		}
		found[afi] = gw
	}
	return found, errs
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
