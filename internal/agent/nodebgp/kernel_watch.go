package nodebgp

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"net"
	"net/netip"
	"slices"
	"sync"
	"time"

	"github.com/vishvananda/netlink"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// discovered is what the agent found on the node: for the peers whose address it finds
// there, the router on each interface and the gateway of each family; for the
// NodeAddress advertisements, the addresses of their interfaces.
type discovered struct {
	neighbours map[string]netip.Addr
	gateways   map[kbgpv1.AFI]netip.Addr
	addresses  map[string][]netip.Addr
}

func (d discovered) equal(o discovered) bool {
	return maps.Equal(d.neighbours, o.neighbours) && maps.Equal(d.gateways, o.gateways) &&
		maps.EqualFunc(d.addresses, o.addresses, slices.Equal)
}

// kernelWatch follows the kernel's route, neighbour and address changes and asks for a
// reconcile when what the last reconcile discovered is no longer what the node has: a
// default route moved to another gateway, a link's router changed, an announced
// interface's addresses changed. It looks only when
// the node config has such peers, and compares before it asks, so the neighbour
// table's routine churn (reachable, stale, probe) costs no reconcile.
type kernelWatch struct {
	logger     *slog.Logger
	neighbours *interfaceNeighbors
	gateways   *defaultGateways
	// changed asks for a reconcile of the node.
	changed func()

	mu sync.Mutex
	// ifaces and families are what the last reconcile's node config discovers,
	// addressIfaces the interfaces its advertisements announce; used is what it found.
	ifaces        map[string][]string
	families      map[kbgpv1.AFI][]string
	addressIfaces []string
	used          discovered
}

// reconciled records what a reconcile of nc, announcing the addresses of
// addressIfaces, found.
func (w *kernelWatch) reconciled(nc *kbgpv1.BGPNodeConfig, addressIfaces []string, used discovered) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ifaces, w.families, w.addressIfaces, w.used = nil, nil, nil, used
	if nc != nil {
		w.ifaces, w.families, w.addressIfaces = interfacePeers(nc), gatewayPeers(nc), addressIfaces
	}
}

// recheck discovers again and asks for a reconcile when the result differs.
func (w *kernelWatch) recheck() {
	w.mu.Lock()
	if len(w.ifaces) == 0 && len(w.families) == 0 && len(w.addressIfaces) == 0 {
		w.mu.Unlock()
		return
	}
	neighbours, _ := w.neighbours.resolve(w.ifaces)
	gateways, _ := w.gateways.resolve(w.families)
	same := w.used.equal(discovered{neighbours: neighbours, gateways: gateways, addresses: interfaceAddresses(w.addressIfaces)})
	w.mu.Unlock()
	if !same {
		w.changed()
	}
}

// watchesLink says whether a peer runs over the interface of index link.
func (w *kernelWatch) watchesLink(link int) bool {
	ifi, err := net.InterfaceByIndex(link)
	if err != nil {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	_, ok := w.ifaces[ifi.Name]
	return ok
}

// run rechecks on every route, neighbour and address change of the agent's network namespace
// until ctx ends. A subscription that fails is opened again after a pause; meanwhile
// the periodic recheck of what is missing still runs.
func (w *kernelWatch) run(ctx context.Context) {
	for ctx.Err() == nil {
		if err := w.follow(ctx); err != nil {
			w.logger.Warn("following the kernel's routes and neighbours", "error", err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(deviceRecheckInterval):
		}
	}
}

// follow subscribes to route and neighbour changes and rechecks on each until ctx
// ends or a subscription closes.
func (w *kernelWatch) follow(ctx context.Context) error {
	done := make(chan struct{})
	defer close(done)
	routes, neighs, addrs := make(chan netlink.RouteUpdate, 64), make(chan netlink.NeighUpdate, 64), make(chan netlink.AddrUpdate, 64)
	if err := netlink.RouteSubscribeWithOptions(routes, done, netlink.RouteSubscribeOptions{}); err != nil {
		return err
	}
	if err := netlink.NeighSubscribeWithOptions(neighs, done, netlink.NeighSubscribeOptions{}); err != nil {
		return err
	}
	if err := netlink.AddrSubscribeWithOptions(addrs, done, netlink.AddrSubscribeOptions{}); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case u, ok := <-routes:
			if !ok {
				return errSubscriptionClosed
			}
			if isDefault(u.Dst) {
				w.recheck()
			}
		case u, ok := <-neighs:
			if !ok {
				return errSubscriptionClosed
			}
			if u.Family == netlink.FAMILY_V6 && w.watchesLink(u.LinkIndex) {
				w.recheck()
			}
		case _, ok := <-addrs:
			if !ok {
				return errSubscriptionClosed
			}
			w.recheck()
		}
	}
}

// errSubscriptionClosed: the kernel closed a netlink subscription (its buffer overran).
var errSubscriptionClosed = errors.New("netlink subscription closed")
