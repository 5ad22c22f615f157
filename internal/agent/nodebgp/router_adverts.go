package nodebgp

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"slices"
	"sync"
	"time"

	"github.com/mdlayher/ndp"
	"golang.org/x/net/ipv6"
)

// routerAdvertInterval is how often the agent announces itself on an interface a peer
// runs over: the interval FRR uses on the interfaces of its own interface neighbours.
const routerAdvertInterval = 10 * time.Second

// routerAdverts sends IPv6 router advertisements on the interfaces peers run over. An
// unnumbered session needs each end to know the other's link-local address, and routers
// (FRR's zebra among them) learn it from the advertisements they receive, as the agent
// learns theirs from its kernel's neighbour table. The advertisements say the node is
// no default router (lifetime 0): they only make its address known. Only the
// reconciler goroutine calls set; stop ends every sender.
type routerAdverts struct {
	logger *slog.Logger
	mu     sync.Mutex
	// senders are the running senders, by interface.
	senders map[string]context.CancelFunc
	wg      sync.WaitGroup
}

// set runs a sender on exactly the interfaces named.
func (a *routerAdverts) set(ifaces []string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.senders == nil {
		a.senders = map[string]context.CancelFunc{}
	}
	for iface, cancel := range a.senders {
		if !slices.Contains(ifaces, iface) {
			cancel()
			delete(a.senders, iface)
		}
	}
	for _, iface := range ifaces {
		if _, running := a.senders[iface]; running {
			continue
		}
		ctx, cancel := context.WithCancel(context.Background())
		a.senders[iface] = cancel
		a.wg.Add(1)
		go func() {
			defer a.wg.Done()
			a.advertise(ctx, iface)
		}()
	}
}

// stop ends every sender and waits for them.
func (a *routerAdverts) stop() {
	a.set(nil)
	a.wg.Wait()
}

// advertise sends an advertisement on iface now and every routerAdvertInterval until
// ctx ends. An interface that does not exist yet, or has no link-local address yet, is
// tried again at the next tick.
func (a *routerAdverts) advertise(ctx context.Context, iface string) {
	var conn *ndp.Conn
	var ra *ndp.RouterAdvertisement
	defer func() {
		if conn != nil {
			conn.Close()
		}
	}()
	tick := time.NewTicker(routerAdvertInterval)
	defer tick.Stop()
	var failing bool
	for {
		var err error
		if conn == nil {
			conn, ra, err = listenNDP(iface)
		}
		if err == nil {
			err = conn.WriteTo(ra, nil, netip.IPv6LinkLocalAllNodes())
		}
		if err != nil && conn != nil {
			conn.Close()
			conn = nil
		}
		if (err != nil) != failing {
			failing = err != nil
			a.logger.Info("router advertisements", "interface", iface, "sending", !failing, "error", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// listenNDP opens an NDP socket on iface's link-local address that sends only (every
// ICMPv6 type is filtered out of what it would receive), with the advertisement to send
// on it.
func listenNDP(iface string) (*ndp.Conn, *ndp.RouterAdvertisement, error) {
	ifi, err := net.InterfaceByName(iface)
	if err != nil {
		return nil, nil, err
	}
	conn, _, err := ndp.Listen(ifi, ndp.LinkLocal)
	if err != nil {
		return nil, nil, fmt.Errorf("listen on %s: %w", iface, err)
	}
	var f ipv6.ICMPFilter
	f.SetAll(true)
	if err := conn.SetICMPFilter(&f); err != nil {
		conn.Close()
		return nil, nil, fmt.Errorf("filter on %s: %w", iface, err)
	}
	return conn, routerAdvert(ifi.HardwareAddr), nil
}

// routerAdvert is the advertisement of an interface with link-layer address mac: no
// default router, no prefixes, the link-layer address so the receiver need not
// resolve it.
func routerAdvert(mac net.HardwareAddr) *ndp.RouterAdvertisement {
	ra := &ndp.RouterAdvertisement{CurrentHopLimit: 64}
	if len(mac) == 6 {
		ra.Options = append(ra.Options, &ndp.LinkLayerAddress{Direction: ndp.Source, Addr: mac})
	}
	return ra
}
