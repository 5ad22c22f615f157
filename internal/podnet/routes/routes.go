// Package routes installs into the node's kernel the pod CIDRs of the other nodes that
// importing peers send (a bgp.RouteSink), judged by podnet.ImportRejection, and only
// those: kbgp's routes carry their own rtnetlink protocol and never replace another's.
package routes

import (
	"errors"
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

// staleSweepAfter bounds how long routes found in the kernel at start wait for the
// importing peers' End-of-RIB before they are removed anyway.
const staleSweepAfter = 2 * time.Minute

// Backoff of the retries of a failed install or removal.
const (
	retryFirst = time.Second
	retryMax   = time.Minute
)

// Installer installs into the kernel the other nodes' pod CIDRs that importing peers
// send (bgp.RouteSink). Everything sent is kept and judged (podnet.ImportRejection)
// again when the Nodes' pod CIDRs change; nothing is installed before the Nodes are
// known (SetNodes), since until then any prefix could be the node's own. A prefix that
// may be installed goes via the next hop of the lowest peer address that sends it, and
// leaves when no peer sends it any more; a failed install or removal is retried with
// backoff. Routes kbgp installed before a restart stay in the kernel (forwarding goes
// on) and are swept once every importing peer of their family has sent End-of-RIB,
// unless a peer sent them again.
type Installer struct {
	kernel Kernel
	logger *slog.Logger
	// changed is called, outside the lock, when the installed count changes.
	changed func()
	// retryFirst is the first retry's delay; it doubles up to retryMax.
	retryFirst time.Duration

	mu sync.Mutex
	// nodesKnown: SetNodes was called, the Node list is complete.
	nodesKnown bool
	// scope is what routes are judged against; its Ranges are --cluster-pod-cidrs.
	scope podnet.ImportScope
	// sent is what each importing peer sends, per prefix: peer → next hop, whether it
	// may be installed or not.
	sent map[netip.Prefix]map[netip.Addr]netip.Addr
	// installed is kbgp's routes in the kernel, by prefix.
	installed map[netip.Prefix]netip.Addr
	// stale are installed routes from before the start that no peer has sent again.
	stale map[netip.Prefix]bool
	// awaitEoR are, per family, the importing peers whose End-of-RIB the stale routes
	// wait for.
	awaitEoR map[bgp.Family]map[netip.Addr]bool
	// failed are the prefixes whose last install or removal failed; retry is the
	// pending retry, retries how many ran in a row.
	failed  map[netip.Prefix]bool
	retry   *time.Timer
	retries int
}

var _ bgp.RouteSink = (*Installer)(nil)

// New takes over kbgp's routes already in the kernel as stale and sweeps what
// is still stale after staleSweepAfter.
func New(kernel Kernel, ranges []netip.Prefix, logger *slog.Logger, changed func()) *Installer {
	p := &Installer{kernel: kernel, logger: logger, changed: changed, retryFirst: retryFirst,
		scope: podnet.ImportScope{Ranges: ranges},
		sent:  map[netip.Prefix]map[netip.Addr]netip.Addr{}, installed: map[netip.Prefix]netip.Addr{}, stale: map[netip.Prefix]bool{},
		awaitEoR: map[bgp.Family]map[netip.Addr]bool{}, failed: map[netip.Prefix]bool{}}
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

// SetNodes records the pod CIDRs of every Node and those of this node, which are never
// installed from a peer, and judges again what the peers sent: a node's pod CIDR that
// arrived before its Node was seen is installed now, one whose Node left is removed.
func (p *Installer) SetNodes(all, own []netip.Prefix) {
	p.update(func() []netip.Prefix {
		first := !p.nodesKnown
		p.nodesKnown = true
		p.scope.NodePodCIDRs, p.scope.Own = slices.Clone(all), slices.Clone(own)
		if first {
			// What arrived before is judged, and counted, now.
			for prefix, peers := range p.sent {
				for _, nextHop := range peers {
					if why := podnet.ImportRejection(prefix, nextHop, p.scope); why != "" {
						metrics.PodRouteRejected(why)
					}
				}
			}
		}
		return p.known()
	})
}

// known is every prefix sent or installed.
func (p *Installer) known() []netip.Prefix {
	out := slices.Collect(maps.Keys(p.sent))
	for prefix := range p.installed {
		if _, ok := p.sent[prefix]; !ok {
			out = append(out, prefix)
		}
	}
	return out
}

// Count is how many pod routes kbgp has in the kernel.
func (p *Installer) Count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.installed)
}

// Received implements bgp.RouteSink.
func (p *Installer) Received(routes []bgp.PeerRoute) {
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
			// Before the Nodes are known every route would count as refused; they
			// are counted when they are (SetNodes).
			if p.nodesKnown {
				if why := podnet.ImportRejection(r.Prefix, r.NextHop, p.scope); why != "" {
					metrics.PodRouteRejected(why)
				}
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

// Importing implements bgp.RouteSink: the routes of the previous run in family wait
// for peer's End-of-RIB too.
func (p *Installer) Importing(peer netip.Addr, family bgp.Family) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.awaitEoR[family] == nil {
		p.awaitEoR[family] = map[netip.Addr]bool{}
	}
	p.awaitEoR[family][peer] = true
}

// Forget implements bgp.RouteSink.
func (p *Installer) Forget(peer netip.Addr, family bgp.Family) {
	p.update(func() []netip.Prefix {
		var touched []netip.Prefix
		for prefix, peers := range p.sent {
			if _, ok := peers[peer]; ok && familyOf(prefix) == family {
				delete(peers, peer)
				touched = append(touched, prefix)
			}
		}
		// A peer that no longer imports is not waited for.
		return append(touched, p.endOfRIB(peer, family)...)
	})
}

// EndOfRIB implements bgp.RouteSink: once every importing peer of the family has sent
// its table, the family's routes still stale are gone. A route only a slower peer
// carries stays until that peer's End-of-RIB.
func (p *Installer) EndOfRIB(peer netip.Addr, family bgp.Family) {
	p.update(func() []netip.Prefix { return p.endOfRIB(peer, family) })
}

// endOfRIB records peer's End-of-RIB and returns the stale routes of family to sweep
// if it was the last one awaited.
func (p *Installer) endOfRIB(peer netip.Addr, family bgp.Family) []netip.Prefix {
	delete(p.awaitEoR[family], peer)
	if len(p.awaitEoR[family]) > 0 {
		return nil
	}
	return p.unstale(&family)
}

// sweep removes the stale routes of family (nil: every family).
func (p *Installer) sweep(family *bgp.Family) {
	p.update(func() []netip.Prefix { return p.unstale(family) })
}

// unstale ends the stale mark of family's routes (nil: every family) and returns them.
func (p *Installer) unstale(family *bgp.Family) []netip.Prefix {
	var touched []netip.Prefix
	for prefix := range p.stale {
		if family == nil || familyOf(prefix) == *family {
			delete(p.stale, prefix)
			touched = append(touched, prefix)
		}
	}
	return touched
}

// update applies change under the lock, then makes the kernel agree for the prefixes
// it touched.
func (p *Installer) update(change func() []netip.Prefix) {
	p.mu.Lock()
	before := len(p.installed)
	p.refreshLocal()
	touched := change()
	for _, prefix := range touched {
		p.sync(prefix)
	}
	p.scheduleRetry()
	after, failed := len(p.installed), len(p.failed)
	p.mu.Unlock()
	metrics.SetPodRoutesInstalled(after)
	metrics.SetPodRoutesFailed(failed)
	if before != after && p.changed != nil {
		p.changed()
	}
}

// refreshLocal reads the node's addresses, which are never a next hop.
func (p *Installer) refreshLocal() {
	local, err := p.kernel.LocalAddresses()
	if err != nil {
		p.logger.Warn("the node's addresses could not be listed: judging next hops against the last list", "error", err)
		return
	}
	p.scope.Local = local
}

// scheduleRetry arms the retry of the failed prefixes, with backoff.
func (p *Installer) scheduleRetry() {
	if len(p.failed) == 0 {
		p.retries = 0
		return
	}
	if p.retry != nil {
		return
	}
	delay := min(p.retryFirst<<min(p.retries, 16), retryMax)
	p.retries++
	p.retry = time.AfterFunc(delay, func() {
		p.update(func() []netip.Prefix {
			p.retry = nil
			return slices.Collect(maps.Keys(p.failed))
		})
	})
}

// sync makes the kernel's route to prefix what the peers send and may be installed:
// the lowest such peer's next hop, or none (a stale route waits for the sweep).
func (p *Installer) sync(prefix netip.Prefix) {
	delete(p.failed, prefix)
	peers := p.sent[prefix]
	if len(peers) == 0 {
		delete(p.sent, prefix)
	}
	if !p.nodesKnown {
		// Neither installed nor removed: the routes of the previous run keep
		// forwarding, even past End-of-RIB, until the Nodes say which may stay.
		return
	}
	var via netip.Addr
	for _, peer := range slices.SortedFunc(maps.Keys(peers), netip.Addr.Compare) {
		if podnet.ImportRejection(prefix, peers[peer], p.scope) == "" {
			via = peers[peer]
			break
		}
	}
	if !via.IsValid() {
		if _, ok := p.installed[prefix]; !ok || p.stale[prefix] {
			return
		}
		if err := p.kernel.Delete(prefix); err != nil {
			p.logger.Warn("pod route not removed; retrying", "prefix", prefix.String(), "error", err)
			p.failed[prefix] = true
			return
		}
		delete(p.installed, prefix)
		return
	}
	delete(p.stale, prefix)
	if cur, ok := p.installed[prefix]; ok && cur == via {
		return
	}
	err := p.kernel.Replace(prefix, via)
	switch {
	case errors.Is(err, errForeignRoute):
		// Never retried: the owner of that route decides; a change of what the peers
		// send tries again.
		metrics.PodRouteRejected(podnet.RejectForeignRoute)
		p.logger.Warn("pod route not installed: the table has a route to the prefix kbgp did not install", "prefix", prefix.String(), "via", via.String(), "error", err)
		delete(p.installed, prefix)
	case err != nil:
		p.logger.Warn("pod route not installed; retrying", "prefix", prefix.String(), "via", via.String(), "error", err)
		p.failed[prefix] = true
	default:
		p.installed[prefix] = via
	}
}

func familyOf(p netip.Prefix) bgp.Family {
	if p.Addr().Is4() {
		return bgp.FamilyIPv4Unicast
	}
	return bgp.FamilyIPv6Unicast
}
