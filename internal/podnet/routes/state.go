package routes

import (
	"net/netip"
	"slices"

	"kbgp.io/kbgp/internal/podnet"
)

// Reasons a received route is not in the kernel that are no refusal, beside
// RejectNodesUnknown: the route may be installed, it is not yet.
const (
	// NotImported: the peer imports nothing of the prefix's family, so its route was
	// never offered to the kernel.
	NotImported = "not-imported"
	// NotYetInstalled: the route may be installed but is not in the kernel via the
	// peer's next hop: its install failed and is retried.
	NotYetInstalled = "not-yet-installed"
	// NotPassedOn: the peer imports the family but the speaker has not passed the
	// route on: it is on its way, or the speaker drops it as a loop (the node's AS in
	// its AS path, or the node's router ID as its ORIGINATOR_ID).
	NotPassedOn = "not-passed-on"
)

// RouteState says whether peer's route to prefix is in the kernel via the peer's next
// hop, and if not, why: a refusal (RejectNotInPolicy, RejectOverMaxRoutes, podnet's
// reasons, podnet.RejectForeignRoute ...) or a wait (RejectNodesUnknown,
// NotYetInstalled), or one it was never given (NotImported, NotPassedOn). It answers `kubectl bgp routes --received`.
func (p *Installer) RouteState(peer netip.Addr, prefix netip.Prefix) (installed bool, reason string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	nextHop, ok := p.sent[prefix][peer]
	if !ok {
		if _, imports := p.imports[peer][familyOf(prefix)]; !imports {
			return false, NotImported
		}
		return false, NotPassedOn
	}
	return p.state(peer, prefix, nextHop)
}

// state is RouteState for a route the peer sent via nextHop; p.mu is held.
func (p *Installer) state(peer netip.Addr, prefix netip.Prefix, nextHop netip.Addr) (installed bool, reason string) {
	if why := p.rejection(peer, prefix, nextHop); why != "" {
		return false, why
	}
	if p.foreign[prefix] {
		return false, podnet.RejectForeignRoute
	}
	if slices.Contains(p.installed[prefix], nextHop) && !p.stale[prefix] {
		return true, ""
	}
	return false, NotYetInstalled
}

// refused says whether a reason of state is a refusal rather than a wait.
func refused(reason string) bool {
	return reason != RejectNodesUnknown && reason != NotYetInstalled
}
