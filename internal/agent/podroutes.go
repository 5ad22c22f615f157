package agent

import (
	"log/slog"
	"maps"
	"net/netip"
	"slices"
	"sync"
	"time"

	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/metrics"
	"kbgp.io/kbgp/internal/podnet"
)

// staleSweepAfter bounds how long routes found in the kernel at start wait for a peer's
// End-of-RIB before they are removed anyway.
const staleSweepAfter = 2 * time.Minute

// podRoutes installs into the kernel the other nodes' pod CIDRs that importing peers
// send (bgp.RouteSink). Everything sent is kept and judged (podnet.ImportRejection)
// again when the node's or the cluster's pod CIDRs change; a prefix that may be
// installed goes via the next hop of the lowest peer address that sends it, and leaves
// when no peer sends it any more. Routes kbgp installed
// before a restart stay in the kernel (forwarding goes on) and are swept after the
// peers' End-of-RIB unless a peer sends them again.
type podRoutes struct {
	kernel  kernelRoutes
	cluster []netip.Prefix
	logger  *slog.Logger
	// changed is called, outside the lock, when the installed count changes.
	changed func()

	mu  sync.Mutex
	own []netip.Prefix
	// sent is what each importing peer sends, per prefix: peer → next hop, whether it
	// may be installed or not.
	sent map[netip.Prefix]map[netip.Addr]netip.Addr
	// installed is kbgp's routes in the kernel, by prefix.
	installed map[netip.Prefix]netip.Addr
	// stale are installed routes from before the start that no peer has sent again.
	stale map[netip.Prefix]bool
}

var _ bgp.RouteSink = (*podRoutes)(nil)

// newPodRoutes takes over kbgp's routes already in the kernel as stale and sweeps what
// is still stale after staleSweepAfter.
func newPodRoutes(kernel kernelRoutes, cluster []netip.Prefix, logger *slog.Logger, changed func()) *podRoutes {
	p := &podRoutes{kernel: kernel, cluster: cluster, logger: logger, changed: changed,
		sent: map[netip.Prefix]map[netip.Addr]netip.Addr{}, installed: map[netip.Prefix]netip.Addr{}, stale: map[netip.Prefix]bool{}}
	existing, err := kernel.List()
	if err != nil {
		logger.Warn("kbgp's routes from before this start could not be listed: they stay until replaced", "error", err)
	}
	for prefix, via := range existing {
		p.installed[prefix], p.stale[prefix] = via, true
	}
	if len(existing) > 0 {
		logger.Info("kept the pod routes of the previous run until the peers' End-of-RIB", "routes", len(existing))
		time.AfterFunc(staleSweepAfter, func() { p.sweep(nil) })
	}
	metrics.SetPodRoutesInstalled(len(p.installed))
	return p
}

// setOwn records the node's pod CIDRs, which are never installed from a peer, and
// judges again what the peers sent.
func (p *podRoutes) setOwn(own []netip.Prefix) {
	p.update(func() []netip.Prefix {
		p.own = slices.Clone(own)
		return p.known()
	})
}

// setCluster records the cluster's pod ranges (the Nodes' pod CIDRs when no
// --cluster-pod-cidrs is given), and judges again what the peers sent: a node's pod
// CIDR that arrived before its Node was seen is installed now.
func (p *podRoutes) setCluster(cluster []netip.Prefix) {
	p.update(func() []netip.Prefix {
		p.cluster = slices.Clone(cluster)
		return p.known()
	})
}

// known is every prefix sent or installed.
func (p *podRoutes) known() []netip.Prefix {
	out := slices.Collect(maps.Keys(p.sent))
	for prefix := range p.installed {
		if _, ok := p.sent[prefix]; !ok {
			out = append(out, prefix)
		}
	}
	return out
}

// Count is how many pod routes kbgp has in the kernel.
func (p *podRoutes) Count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.installed)
}

// Received implements bgp.RouteSink.
func (p *podRoutes) Received(routes []bgp.PeerRoute) {
	p.update(func() []netip.Prefix {
		var touched []netip.Prefix
		for _, r := range routes {
			if r.Withdrawn {
				if peers := p.sent[r.Prefix]; peers != nil {
					delete(peers, r.Peer)
					touched = append(touched, r.Prefix)
				}
				continue
			}
			if why := podnet.ImportRejection(r.Prefix, r.NextHop, p.cluster, p.own); why != "" {
				metrics.PodRouteRejected(why)
			}
			if p.sent[r.Prefix] == nil {
				p.sent[r.Prefix] = map[netip.Addr]netip.Addr{}
			}
			p.sent[r.Prefix][r.Peer] = r.NextHop
			touched = append(touched, r.Prefix)
		}
		return touched
	})
}

// Forget implements bgp.RouteSink.
func (p *podRoutes) Forget(peer netip.Addr, family bgp.Family) {
	p.update(func() []netip.Prefix {
		var touched []netip.Prefix
		for prefix, peers := range p.sent {
			if _, ok := peers[peer]; ok && familyOf(prefix) == family {
				delete(peers, peer)
				touched = append(touched, prefix)
			}
		}
		return touched
	})
}

// EndOfRIB implements bgp.RouteSink: the family's routes still stale are gone.
func (p *podRoutes) EndOfRIB(_ netip.Addr, family bgp.Family) {
	p.sweep(&family)
}

// sweep removes the stale routes of family (nil: every family).
func (p *podRoutes) sweep(family *bgp.Family) {
	p.update(func() []netip.Prefix {
		var touched []netip.Prefix
		for prefix := range p.stale {
			if family == nil || familyOf(prefix) == *family {
				delete(p.stale, prefix)
				touched = append(touched, prefix)
			}
		}
		return touched
	})
}

// update applies change under the lock, then makes the kernel agree for the prefixes
// it touched.
func (p *podRoutes) update(change func() []netip.Prefix) {
	p.mu.Lock()
	before := len(p.installed)
	for _, prefix := range change() {
		p.sync(prefix)
	}
	after := len(p.installed)
	p.mu.Unlock()
	metrics.SetPodRoutesInstalled(after)
	if before != after && p.changed != nil {
		p.changed()
	}
}

// sync makes the kernel's route to prefix what the peers send and may be installed:
// the lowest such peer's next hop, or none (a stale route waits for the sweep).
func (p *podRoutes) sync(prefix netip.Prefix) {
	peers := p.sent[prefix]
	if len(peers) == 0 {
		delete(p.sent, prefix)
	}
	var via netip.Addr
	for _, peer := range slices.SortedFunc(maps.Keys(peers), netip.Addr.Compare) {
		if podnet.ImportRejection(prefix, peers[peer], p.cluster, p.own) == "" {
			via = peers[peer]
			break
		}
	}
	if !via.IsValid() {
		if _, ok := p.installed[prefix]; !ok || p.stale[prefix] {
			return
		}
		if err := p.kernel.Delete(prefix); err != nil {
			p.logger.Warn("pod route not removed", "prefix", prefix.String(), "error", err)
			return
		}
		delete(p.installed, prefix)
		return
	}
	delete(p.stale, prefix)
	if cur, ok := p.installed[prefix]; ok && cur == via {
		return
	}
	if err := p.kernel.Replace(prefix, via); err != nil {
		p.logger.Warn("pod route not installed", "prefix", prefix.String(), "via", via.String(), "error", err)
		return
	}
	p.installed[prefix] = via
}

func familyOf(p netip.Prefix) bgp.Family {
	if p.Addr().Is4() {
		return bgp.FamilyIPv4Unicast
	}
	return bgp.FamilyIPv6Unicast
}
