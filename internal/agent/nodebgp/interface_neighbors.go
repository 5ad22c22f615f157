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

	"github.com/vishvananda/netlink"
	"k8s.io/client-go/tools/record"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// EventInterfaceNeighborNotFound is the Warning event reason on the BGPNodeConfig when
// the agent finds no link-local router on the interface a peer runs over.
const EventInterfaceNeighborNotFound = "InterfaceNeighborNotFound"

// neighbour is one IPv6 neighbour-table entry of an interface.
type neighbour struct {
	Addr netip.Addr
	// Router: the neighbour announced itself as a router (router advertisement, or the
	// router flag of a neighbour advertisement).
	Router bool
	// Unusable: address resolution failed or has not completed.
	Unusable bool
}

// routerOn picks the neighbour a session over an interface runs to: the one link-local
// router among the interface's usable neighbours, or, when none is flagged a router,
// the one link-local neighbour. Anything else is ambiguous (a shared segment, not the
// point-to-point link an unnumbered session needs), and no neighbour is picked.
func routerOn(neighs []neighbour) (netip.Addr, error) {
	var routers, others []netip.Addr
	for _, n := range neighs {
		if n.Unusable || !n.Addr.Is6() || !n.Addr.IsLinkLocalUnicast() {
			continue
		}
		if n.Router {
			routers = append(routers, n.Addr.WithZone(""))
		} else {
			others = append(others, n.Addr.WithZone(""))
		}
	}
	switch {
	case len(routers) == 1:
		return routers[0], nil
	case len(routers) > 1:
		return netip.Addr{}, fmt.Errorf("%d link-local routers on it (%s); an unnumbered session needs one", len(routers), joinAddrs(routers))
	case len(others) == 1:
		return others[0], nil
	case len(others) > 1:
		return netip.Addr{}, fmt.Errorf("%d link-local neighbours on it and none is a router", len(others))
	}
	return netip.Addr{}, errors.New("no link-local router on it yet")
}

func joinAddrs(addrs []netip.Addr) string {
	s := make([]string, len(addrs))
	for i, a := range addrs {
		s[i] = a.String()
	}
	return strings.Join(s, ", ")
}

// interfaceNeighbors finds, in the agent's network namespace (the node's), the router
// at the other end of each interface the node config's peers run over.
type interfaceNeighbors = addressDiscovery[string, neighbour]

func newInterfaceNeighbors(recorder record.EventRecorder, logger *slog.Logger, list func(string) ([]neighbour, error)) *interfaceNeighbors {
	return &interfaceNeighbors{recorder: recorder, logger: logger, reason: EventInterfaceNeighborNotFound, noun: "interface",
		peers: interfacePeers, list: list, pick: routerOn}
}

// interfacePeers names the peers over each interface of nc, as "peer NAME of instance
// ASN", in spec order.
func interfacePeers(nc *kbgpv1.BGPNodeConfig) map[string][]string {
	out := map[string][]string{}
	for _, inst := range nc.Spec.BGPInstances {
		for _, p := range inst.Peers {
			if p.Interface != "" {
				out[p.Interface] = append(out[p.Interface], fmt.Sprintf("peer %s of instance %d", p.Name, inst.LocalASN))
			}
		}
	}
	return out
}

// peerInterfaces are the interfaces nc's peers run over, sorted.
func peerInterfaces(nc *kbgpv1.BGPNodeConfig) []string {
	return slices.Sorted(maps.Keys(interfacePeers(nc)))
}

// kernelNeighbours lists iface's IPv6 neighbours from the kernel, leaving out the
// node's own addresses (the kernel lists them on some links).
func kernelNeighbours(iface string) ([]neighbour, error) {
	ifi, err := net.InterfaceByName(iface)
	if err != nil {
		return nil, errors.New("no such network device on the node")
	}
	own := map[netip.Addr]bool{}
	if addrs, err := ifi.Addrs(); err == nil {
		for _, a := range addrs {
			if p, err := netip.ParsePrefix(a.String()); err == nil {
				own[p.Addr()] = true
			}
		}
	}
	entries, err := netlink.NeighList(ifi.Index, netlink.FAMILY_V6)
	if err != nil {
		return nil, fmt.Errorf("list neighbours: %w", err)
	}
	var out []neighbour
	for _, e := range entries {
		addr, ok := netip.AddrFromSlice(e.IP)
		if !ok || own[addr] {
			continue
		}
		out = append(out, neighbour{Addr: addr, Router: e.Flags&netlink.NTF_ROUTER != 0,
			Unusable: e.State&(netlink.NUD_FAILED|netlink.NUD_INCOMPLETE) != 0})
	}
	return out, nil
}
