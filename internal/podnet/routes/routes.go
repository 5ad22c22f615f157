// Package routes installs into the node's kernel what importing peers send (a
// bgp.RouteSink): the pod CIDRs of the other nodes (importPodRoutes, judged by
// podnet.ImportRejection) and the routes an import policy accepts (PolicyRejection),
// one multipath route per prefix over every peer's next hop. kbgp's routes carry their
// own rtnetlink protocol and never replace another's.
package routes

import (
	"errors"
	"fmt"
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

// Installer installs into the kernel what importing peers send (bgp.RouteSink).
// Everything sent is kept and judged again when what it is judged against changes
// (the Nodes' pod CIDRs, a peer's import rule). With the pod network, nothing is
// installed before the Nodes are known (SetNodes), since until then any prefix could
// be the node's own. A prefix that may be installed goes via the next hops of every
// peer whose route to it may (one multipath route), and leaves when no peer's may any
// more; a failed install or removal is retried with backoff. Routes kbgp installed
// before a restart stay in the kernel (forwarding goes on) and are swept once every
// importing peer of their family has sent End-of-RIB, unless a peer sent them again.
type Installer struct {
	kernel Kernel
	logger *slog.Logger
	// changed is called, outside the lock, when the installed routes change.
	changed func()
	// retryFirst is the first retry's delay; it doubles up to retryMax.
	retryFirst time.Duration
	// podNetwork: the agent is the node's pod network; pod routes are judged.
	podNetwork bool

	mu sync.Mutex
	// nodesKnown: SetNodes was called, the Node list is complete.
	nodesKnown bool
	// scope is what routes are judged against; its Ranges are --cluster-pod-cidrs.
	scope podnet.ImportScope
	// imports are each importing peer's rules, per family.
	imports map[netip.Addr]map[bgp.Family]bgp.Import
	// sent is what each importing peer sends, per prefix: peer → next hop, whether it
	// may be installed or not.
	sent map[netip.Prefix]map[netip.Addr]netip.Addr
	// over are, per peer family with an import policy, the prefixes its cap leaves out.
	over map[peerFamily]map[netip.Prefix]bool
	// installed is kbgp's routes in the kernel, by prefix: their next hops.
	installed map[netip.Prefix][]netip.Addr
	// foreign are prefixes not installed because a route kbgp did not install is there.
	foreign map[netip.Prefix]bool
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

// peerFamily is one peer's family.
type peerFamily struct {
	peer   netip.Addr
	family bgp.Family
}

var _ bgp.RouteSink = (*Installer)(nil)

// PodNetwork says the agent is the node's pod network: Ranges are the cluster's pod
// ranges (--cluster-pod-cidrs; empty: the Nodes' pod CIDRs).
type PodNetwork struct {
	Ranges []netip.Prefix
}

// New takes over kbgp's routes already in the kernel as stale and sweeps what
// is still stale after staleSweepAfter. pods: the agent is the pod network, and pod
// routes wait for SetNodes; nil: only import policies install anything.
func New(kernel Kernel, pods *PodNetwork, logger *slog.Logger, changed func()) *Installer {
	p := &Installer{kernel: kernel, logger: logger, changed: changed, retryFirst: retryFirst, podNetwork: pods != nil,
		imports: map[netip.Addr]map[bgp.Family]bgp.Import{}, over: map[peerFamily]map[netip.Prefix]bool{},
		sent: map[netip.Prefix]map[netip.Addr]netip.Addr{}, installed: map[netip.Prefix][]netip.Addr{}, stale: map[netip.Prefix]bool{},
		foreign: map[netip.Prefix]bool{}, awaitEoR: map[bgp.Family]map[netip.Addr]bool{}, failed: map[netip.Prefix]bool{}}
	if pods != nil {
		p.scope.Ranges = pods.Ranges
	}
	existing, err := kernel.List()
	if err != nil {
		logger.Warn("kbgp's routes from before this start could not be listed: they stay until replaced", "error", err)
	}
	for prefix, via := range existing {
		p.installed[prefix], p.stale[prefix] = via, true
	}
	if len(existing) > 0 {
		logger.Info("kept the routes of the previous run until the peers' End-of-RIB", "routes", len(existing))
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
				for peer, nextHop := range peers {
					p.count(peer, prefix, nextHop)
				}
			}
		}
		all := map[peerFamily]bool{}
		for peer, fams := range p.imports {
			for family := range fams {
				all[peerFamily{peer, family}] = true
			}
		}
		return append(p.known(), p.recap(all)...)
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

// Count is how many routes kbgp has in the kernel.
func (p *Installer) Count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.installed)
}

// PeerCounts are, for one importing peer, the routes it sent that are in the kernel
// via its next hop and those refused (by a rule, a cap, or a route kbgp did not
// install in the way). Routes waiting for a retry or for the Nodes are neither.
type PeerCounts struct {
	Installed, Rejected int
}

// Counts are the PeerCounts of every importing peer.
func (p *Installer) Counts() map[netip.Addr]PeerCounts {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[netip.Addr]PeerCounts, len(p.imports))
	for peer := range p.imports {
		out[peer] = PeerCounts{}
	}
	for prefix, peers := range p.sent {
		for peer, nh := range peers {
			c := out[peer]
			switch installed, why := p.state(peer, prefix, nh); {
			case installed:
				c.Installed++
			case refused(why):
				c.Rejected++
			}
			out[peer] = c
		}
	}
	return out
}

// Received implements bgp.RouteSink.
func (p *Installer) Received(routes []bgp.PeerRoute) {
	p.update(func() []netip.Prefix {
		var touched []netip.Prefix
		senders := map[peerFamily]bool{}
		for _, r := range routes {
			senders[peerFamily{r.Peer, familyOf(r.Prefix)}] = true
			if r.Withdrawn {
				if peers := p.sent[r.Prefix]; peers != nil {
					delete(peers, r.Peer)
					touched = append(touched, r.Prefix)
				}
				continue
			}
			if p.sent[r.Prefix] == nil {
				p.sent[r.Prefix] = map[netip.Addr]netip.Addr{}
			}
			p.sent[r.Prefix][r.Peer] = r.NextHop
			touched = append(touched, r.Prefix)
		}
		touched = append(touched, p.recap(senders)...)
		for _, r := range routes {
			if !r.Withdrawn {
				p.count(r.Peer, r.Prefix, r.NextHop)
			}
		}
		return touched
	})
}

// count counts a received route refused, by reason. Before the Nodes are known every
// pod route would count as refused; they are counted when they are (SetNodes).
func (p *Installer) count(peer netip.Addr, prefix netip.Prefix, nextHop netip.Addr) {
	if why := p.rejection(peer, prefix, nextHop); why != "" && why != RejectNodesUnknown {
		metrics.PodRouteRejected(why)
	}
}

// Importing implements bgp.RouteSink: what peer sent in family is judged by imp from
// now on, and the routes of the previous run in family wait for its End-of-RIB too.
func (p *Installer) Importing(peer netip.Addr, family bgp.Family, imp bgp.Import) {
	p.update(func() []netip.Prefix {
		if p.imports[peer] == nil {
			p.imports[peer] = map[bgp.Family]bgp.Import{}
		}
		_, again := p.imports[peer][family]
		p.imports[peer][family] = imp
		if !again {
			if p.awaitEoR[family] == nil {
				p.awaitEoR[family] = map[netip.Addr]bool{}
			}
			p.awaitEoR[family][peer] = true
		}
		return append(p.sentBy(peer, family), p.recap(map[peerFamily]bool{{peer, family}: true})...)
	})
}

// sentBy is what peer sent in family.
func (p *Installer) sentBy(peer netip.Addr, family bgp.Family) []netip.Prefix {
	var out []netip.Prefix
	for prefix, peers := range p.sent {
		if _, ok := peers[peer]; ok && familyOf(prefix) == family {
			out = append(out, prefix)
		}
	}
	return out
}

// Forget implements bgp.RouteSink.
func (p *Installer) Forget(peer netip.Addr, family bgp.Family) {
	p.update(func() []netip.Prefix {
		touched := p.sentBy(peer, family)
		for _, prefix := range touched {
			delete(p.sent[prefix], peer)
		}
		delete(p.imports[peer], family)
		if len(p.imports[peer]) == 0 {
			delete(p.imports, peer)
		}
		touched = append(touched, p.recap(map[peerFamily]bool{{peer, family}: true})...)
		// A peer that no longer imports is not waited for.
		return append(touched, p.endOfRIB(peer, family)...)
	})
}

// recap recomputes the caps of the import policies of the peer families whose routes
// or rules changed, and returns the prefixes that crossed a cap. It reads all they
// sent: an import policy's routes are few (its cap bounds what is installed).
func (p *Installer) recap(changed map[peerFamily]bool) []netip.Prefix {
	var touched []netip.Prefix
	for pf := range changed {
		imp, ok := p.imports[pf.peer][pf.family]
		var over map[netip.Prefix]bool
		if ok && imp.Routes != nil {
			var accepted []netip.Prefix
			for _, prefix := range p.sentBy(pf.peer, pf.family) {
				if PolicyRejection(prefix, p.sent[prefix][pf.peer], *imp.Routes, p.scope) == "" {
					accepted = append(accepted, prefix)
				}
			}
			over = overCap(accepted, imp.Routes.MaxRoutes)
		}
		old := p.over[pf]
		for prefix := range old {
			if !over[prefix] {
				touched = append(touched, prefix)
			}
		}
		for prefix := range over {
			if !old[prefix] {
				touched = append(touched, prefix)
			}
		}
		if len(over) == 0 {
			delete(p.over, pf)
		} else {
			p.over[pf] = over
		}
	}
	return touched
}

// rejection says why peer's route to prefix via nextHop must not be installed, ""
// when it may: as a pod route, or under the family's import policy and within its cap.
func (p *Installer) rejection(peer netip.Addr, prefix netip.Prefix, nextHop netip.Addr) string {
	family := familyOf(prefix)
	imp, ok := p.imports[peer][family]
	if !ok {
		return RejectNotInPolicy
	}
	why := RejectNotInPolicy
	if imp.PodRoutes && p.podNetwork {
		if !p.nodesKnown {
			why = RejectNodesUnknown
		} else if why = podnet.ImportRejection(prefix, nextHop, p.scope); why == "" {
			return ""
		}
	}
	if imp.Routes != nil {
		if why = PolicyRejection(prefix, nextHop, *imp.Routes, p.scope); why == "" && p.over[peerFamily{peer, family}][prefix] {
			why = RejectOverMaxRoutes
		}
	}
	return why
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
	before := maps.Clone(p.installed)
	p.refreshLocal()
	touched := change()
	for _, prefix := range touched {
		p.sync(prefix)
	}
	p.scheduleRetry()
	after, failed := len(p.installed), len(p.failed)
	same := maps.EqualFunc(before, p.installed, slices.Equal)
	p.mu.Unlock()
	metrics.SetPodRoutesInstalled(after)
	metrics.SetPodRoutesFailed(failed)
	if !same && p.changed != nil {
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
// one route over the next hops of all of them, or none (a stale route waits for the
// sweep).
func (p *Installer) sync(prefix netip.Prefix) {
	delete(p.failed, prefix)
	peers := p.sent[prefix]
	if len(peers) == 0 {
		delete(p.sent, prefix)
	}
	if p.podNetwork && !p.nodesKnown {
		// Neither installed nor removed: the routes of the previous run keep
		// forwarding, even past End-of-RIB, until the Nodes say which may stay.
		return
	}
	via := nextHops(peers, func(peer, nh netip.Addr) bool { return p.rejection(peer, prefix, nh) == "" })
	if len(via) == 0 {
		delete(p.foreign, prefix)
		if _, ok := p.installed[prefix]; !ok || p.stale[prefix] {
			return
		}
		if err := p.kernel.Delete(prefix); err != nil {
			p.logger.Warn("route not removed; retrying", "prefix", prefix.String(), "error", err)
			p.failed[prefix] = true
			return
		}
		delete(p.installed, prefix)
		return
	}
	delete(p.stale, prefix)
	if cur, ok := p.installed[prefix]; ok && slices.Equal(cur, via) {
		return
	}
	err := p.kernel.Replace(prefix, via)
	switch {
	case errors.Is(err, errForeignRoute):
		// Never retried: the owner of that route decides; a change of what the peers
		// send tries again.
		metrics.PodRouteRejected(podnet.RejectForeignRoute)
		p.logger.Warn("route not installed: the table has a route to the prefix kbgp did not install", "prefix", prefix.String(), "via", fmt.Sprint(via), "error", err)
		delete(p.installed, prefix)
		p.foreign[prefix] = true
	case err != nil:
		p.logger.Warn("route not installed; retrying", "prefix", prefix.String(), "via", fmt.Sprint(via), "error", err)
		p.failed[prefix] = true
	default:
		delete(p.foreign, prefix)
		p.installed[prefix] = via
	}
}

func familyOf(p netip.Prefix) bgp.Family {
	if p.Addr().Is4() {
		return bgp.FamilyIPv4Unicast
	}
	return bgp.FamilyIPv6Unicast
}
