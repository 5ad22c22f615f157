package lbipam

import (
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Allocator holds which Service holds which address. It is not safe for concurrent
// use: the operator's controller allocates one Service at a time.
//
// An address stays taken for as long as a Service's status may show it, not only for as
// long as the Service is assigned it: a Service moved off an address keeps it "shown"
// until Written reports the status write that removed it, so under lagging or failing
// writes no second Service is given an address the first still shows.
type Allocator struct {
	pools []Pool // by name
	held  map[netip.Addr]*holding
	// byService are the addresses each Service is assigned, in its families' order.
	byService map[string][]netip.Addr
	// shown are, per Service, the addresses its status may still show though it is no
	// longer assigned them.
	shown map[string][]netip.Addr
	// short are, per waiting Service, the pools that would serve it but had no address
	// left: what makes a pool Exhausted.
	short map[string][]string
	// asked are, per waiting Service, the addresses it requests.
	asked map[string][]netip.Addr
}

// holding is one address and the Services holding it: one, or several that may share
// (sameGroup) and have no common port.
type holding struct {
	// owner is the Service the address was given to first (at a rebuild, the oldest);
	// Services joining under its sharing rule never take it away from the owner. Empty
	// while only Services that merely still show the address hold it.
	owner string
	// group is the sharing rule of the owner, which joiners must match.
	group shareGroup
	// users are the Services assigned or still showing the address, with their ports.
	users map[string][]Port
}

// New returns an allocator with no pools.
func New() *Allocator {
	return &Allocator{held: map[netip.Addr]*holding{}, byService: map[string][]netip.Addr{}, shown: map[string][]netip.Addr{}, short: map[string][]string{}, asked: map[string][]netip.Addr{}}
}

// SetPools replaces the pools. Addresses already held stay until their Service is
// assigned again (the controller re-assigns every Service when pools change), and are
// released then if no pool serving the Service holds them any more.
func (a *Allocator) SetPools(pools []Pool) {
	a.pools = slices.Clone(pools)
	slices.SortFunc(a.pools, func(x, y Pool) int { return strings.Compare(x.Name, y.Name) })
}

// Result is what a Service gets.
type Result struct {
	// Addresses are the Service's addresses, primary family first; empty while a
	// required family has none.
	Addresses []netip.Addr
	// Problems say, one per unmet family, why it got no address.
	Problems []string
	// Evicted are the Services that shared an address of this one, its owner, and
	// no longer may (the owner changed its ports or sharing rule): they must be
	// assigned again.
	Evicted []string
}

// Pending reports whether the Service waits for an address it requires.
func (r Result) Pending() bool { return len(r.Addresses) == 0 && len(r.Problems) > 0 }

// Restore records the addresses a Service's status may show, at a rebuild, before any
// Service is assigned: per family the first of req.Current that still lies in a pool
// serving it and that no Service restored before holds (unless shared) is assigned to
// it; the others stay taken as shown until its status drops them. The controller
// restores Services oldest first, so in a double allocation the older Service keeps
// the address.
func (a *Allocator) Restore(req Request) {
	var kept []netip.Addr
	for _, fam := range append(slices.Clone(req.Required), req.Optional...) {
		if addr, ok := a.keepable(req, fam, req.Current); ok {
			kept = append(kept, addr)
			a.hold(req, addr)
		}
	}
	if len(kept) > 0 {
		a.byService[req.Service] = kept
	}
	a.showRest(req, req.Current, kept)
}

// Assign decides the Service's addresses: it keeps what it holds while still valid,
// takes the requested ones, shares by sharing key, or takes the lowest free address of
// the first pool (by name) that serves it. What it held or showed and no longer gets
// stays taken until Written.
func (a *Allocator) Assign(req Request) Result {
	previous := slices.Concat(a.byService[req.Service], a.shown[req.Service], req.Current)
	var res Result
	var short []string
	fams := append(slices.Clone(req.Required), req.Optional...)
	for i, fam := range fams {
		addr, ok := a.keepable(req, fam, previous)
		if !ok {
			var problem string
			var exhausted []string
			addr, problem, exhausted = a.take(req, fam)
			if problem != "" {
				short = append(short, exhausted...)
				if i < len(req.Required) {
					res.Problems = append(res.Problems, problem)
				}
				continue
			}
		}
		res.Addresses = append(res.Addresses, addr)
	}
	a.unwait(req.Service)
	if len(res.Problems) > 0 {
		// A required family is unmet: the Service waits with nothing rather than
		// holding addresses another Service could use.
		res.Addresses = nil
		a.short[req.Service] = slices.Compact(slices.Sorted(slices.Values(short)))
		if len(req.Requested) > 0 {
			a.asked[req.Service] = req.Requested
		}
	}
	for _, addr := range res.Addresses {
		res.Evicted = append(res.Evicted, a.hold(req, addr)...)
	}
	delete(a.byService, req.Service)
	if len(res.Addresses) > 0 {
		a.byService[req.Service] = res.Addresses
	}
	a.showRest(req, previous, res.Addresses)
	return res
}

// showRest keeps, of the addresses the Service's status may show, those it is not
// assigned as shown: taken until Written, owned by nobody.
func (a *Allocator) showRest(req Request, candidates, assigned []netip.Addr) {
	var shown []netip.Addr
	for _, addr := range candidates {
		if slices.Contains(assigned, addr) || slices.Contains(shown, addr) {
			continue
		}
		shown = append(shown, addr)
		h, ok := a.held[addr]
		if !ok {
			h = &holding{group: req.group(), users: map[string][]Port{}}
			a.held[addr] = h
		}
		if _, ok := h.users[req.Service]; !ok {
			h.users[req.Service] = req.Ports
		}
		if h.owner == req.Service {
			a.handOver(addr, h)
		}
	}
	delete(a.shown, req.Service)
	if len(shown) > 0 {
		a.shown[req.Service] = shown
	}
}

// Written reports that the Service's status now shows exactly the addresses shown:
// what it showed but is no longer assigned is given back. It returns the addresses that
// became free, for WaitingFor.
func (a *Allocator) Written(service string, shown []netip.Addr) (freed []netip.Addr) {
	var still, gone []netip.Addr
	for _, addr := range a.shown[service] {
		if slices.Contains(shown, addr) {
			still = append(still, addr)
		} else {
			gone = append(gone, addr)
		}
	}
	delete(a.shown, service)
	if len(still) > 0 {
		a.shown[service] = still
	}
	for _, addr := range gone {
		if a.drop(service, addr) {
			freed = append(freed, addr)
		}
	}
	return freed
}

// Release gives back every address the Service holds or shows: it is gone. It
// returns the addresses that became free.
func (a *Allocator) Release(service string) (freed []netip.Addr) {
	for _, addr := range slices.Concat(a.byService[service], a.shown[service]) {
		if a.drop(service, addr) {
			freed = append(freed, addr)
		}
	}
	delete(a.byService, service)
	delete(a.shown, service)
	a.unwait(service)
	return freed
}

// Withdraw takes every address from a Service that no longer gets any (it stopped
// being an eligible LoadBalancer): they stay taken, shown, until Written.
func (a *Allocator) Withdraw(service string) {
	for _, addr := range a.byService[service] {
		if !slices.Contains(a.shown[service], addr) {
			a.shown[service] = append(a.shown[service], addr)
		}
	}
	assigned := a.byService[service]
	delete(a.byService, service)
	a.unwait(service)
	for _, addr := range assigned {
		if h := a.held[addr]; h.owner == service {
			a.handOver(addr, h)
		}
	}
}

// Showing reports whether the Service's status may still show an address it is no
// longer assigned.
func (a *Allocator) Showing(service string) bool { return len(a.shown[service]) > 0 }

// WaitingFor names the waiting Services one of the freed addresses can serve: those
// requesting it, and those waiting for an address of a pool holding it. Only they are
// worth trying again; the others wait for something a freed address does not change.
func (a *Allocator) WaitingFor(freed []netip.Addr) []string {
	var out []string
	for svc, pools := range a.short {
		if slices.ContainsFunc(freed, func(addr netip.Addr) bool {
			return slices.Contains(a.asked[svc], addr) || slices.ContainsFunc(pools, func(name string) bool { return a.inPool(name, addr) })
		}) {
			out = append(out, svc)
		}
	}
	slices.Sort(out)
	return out
}

func (a *Allocator) inPool(name string, addr netip.Addr) bool {
	i := slices.IndexFunc(a.pools, func(p Pool) bool { return p.Name == name })
	return i >= 0 && a.pools[i].contains(addr)
}

func (a *Allocator) unwait(service string) {
	delete(a.short, service)
	delete(a.asked, service)
}

// drop removes one user from an address, freeing it when nobody is left; it reports
// whether it did.
func (a *Allocator) drop(service string, addr netip.Addr) bool {
	h := a.held[addr]
	if h == nil {
		return false
	}
	delete(h.users, service)
	if len(h.users) == 0 {
		delete(a.held, addr)
		return true
	}
	if h.owner == service {
		a.handOver(addr, h)
	}
	return false
}

// handOver passes an address whose owner left it to the first (by name) of the
// Services still assigned it, which share the owner's rule.
func (a *Allocator) handOver(addr netip.Addr, h *holding) {
	h.owner = ""
	for _, svc := range slices.Sorted(maps.Keys(h.users)) {
		if slices.Contains(a.byService[svc], addr) {
			h.owner = svc
			return
		}
	}
}

// Holds returns the addresses a Service holds.
func (a *Allocator) Holds(service string) []netip.Addr { return slices.Clone(a.byService[service]) }

// keepable finds, among candidates, an address of family fam the Service may keep: in
// a pool serving it (a disabled one too: disabling stops new allocations only), equal
// to what it requests for that family if it requests one, and its own, free or
// shareable.
func (a *Allocator) keepable(req Request, fam corev1.IPFamily, candidates []netip.Addr) (netip.Addr, bool) {
	want, requested := requestedOf(req, fam)
	for _, addr := range candidates {
		if familyOf(addr) != fam || (requested && addr != want) {
			continue
		}
		if a.servingPool(req, addr) == nil {
			continue
		}
		if h := a.held[addr]; (h != nil && h.owner == req.Service) || a.free(req, addr) == "" {
			return addr, true
		}
	}
	return netip.Addr{}, false
}

// take finds a new address of family fam: the requested one, one shared by sharing
// key, or the lowest free one. It returns why it found none, and the pools that would
// have served had they had an address left.
func (a *Allocator) take(req Request, fam corev1.IPFamily) (addr netip.Addr, problem string, exhausted []string) {
	if want, ok := requestedOf(req, fam); ok {
		return want, a.takeRequested(req, want), nil
	}
	if req.SharingKey != "" {
		if addr, ok := a.shared(req, fam); ok {
			return addr, "", nil
		}
	}
	var serving []string
	for i := range a.pools {
		p := &a.pools[i]
		if p.Disabled || !p.hasFamily(fam) || !p.serves(req.Labels) {
			continue
		}
		if addr, ok := a.lowestFree(p, fam); ok {
			return addr, "", nil
		}
		serving = append(serving, p.Name)
	}
	if len(serving) == 0 {
		return netip.Addr{}, fmt.Sprintf("no enabled LoadBalancerIPPool with %s addresses serves this Service", fam), nil
	}
	return netip.Addr{}, fmt.Sprintf("no %s address left in LoadBalancerIPPool %s", fam, strings.Join(serving, ", ")), serving
}

// takeRequested says why the requested address cannot be taken, or "" when it can.
func (a *Allocator) takeRequested(req Request, want netip.Addr) string {
	p := a.servingPool(req, want)
	if p == nil {
		return fmt.Sprintf("requested address %s lies in no LoadBalancerIPPool that serves this Service", want)
	}
	if p.Disabled {
		return fmt.Sprintf("requested address %s lies in LoadBalancerIPPool %s, which is disabled", want, p.Name)
	}
	return a.free(req, want)
}

// shared finds an address held under the Service's sharing rule (sharing key,
// namespace, traffic policy), of family fam, in a pool serving it, with no port in
// common: the lowest, so every Service of one key converges on the same address.
func (a *Allocator) shared(req Request, fam corev1.IPFamily) (netip.Addr, bool) {
	var found []netip.Addr
	for addr, h := range a.held {
		if h.group == req.group() && familyOf(addr) == fam && a.servingPool(req, addr) != nil && a.free(req, addr) == "" {
			found = append(found, addr)
		}
	}
	if len(found) == 0 {
		return netip.Addr{}, false
	}
	return slices.MinFunc(found, netip.Addr.Compare), true
}

// lowestFree walks the pool's ranges of family fam for the lowest address nobody
// holds. Each step skips a held or avoided address, so a walk is bounded by the held
// addresses of the pool, not by its size.
func (a *Allocator) lowestFree(p *Pool, fam corev1.IPFamily) (netip.Addr, bool) {
	for _, r := range p.Ranges {
		if familyOf(r.First) != fam {
			continue
		}
		for addr := r.First; addr.IsValid() && addr.Compare(r.Last) <= 0; addr = addr.Next() {
			if _, taken := a.held[addr]; !taken && !(p.AvoidBuggyIPs && buggy(addr)) {
				return addr, true
			}
		}
	}
	return netip.Addr{}, false
}

// servingPool is the first pool (by name) that holds addr and serves the Service.
func (a *Allocator) servingPool(req Request, addr netip.Addr) *Pool {
	for i := range a.pools {
		if p := &a.pools[i]; p.contains(addr) && p.serves(req.Labels) {
			return p
		}
	}
	return nil
}

// free says why the Service cannot hold addr next to its holders, or "" when it can.
func (a *Allocator) free(req Request, addr netip.Addr) string {
	h, ok := a.held[addr]
	if !ok {
		return ""
	}
	var others []string
	for svc := range h.users {
		if svc != req.Service {
			others = append(others, svc)
		}
	}
	if len(others) == 0 {
		return ""
	}
	slices.Sort(others)
	holders := strings.Join(others, ", ")
	if why := h.group.refuses(req.group()); why != "" {
		return fmt.Sprintf("address %s is held by %s (%s)", addr, holders, why)
	}
	for _, svc := range others {
		if p, clash := commonPort(h.users[svc], req.Ports); clash {
			return fmt.Sprintf("address %s is shared with %s, which already uses port %d/%s", addr, svc, p.Port, p.Protocol)
		}
	}
	return ""
}

// hold gives addr to the Service. The first Service to hold an address owns it; when
// the owner holds it again with other ports or another sharing rule, the Services
// that joined it and no longer may are moved off it (still showing it until their
// status is written) and returned, to be assigned again: the owner never loses its
// address to what a joiner does.
func (a *Allocator) hold(req Request, addr netip.Addr) (evicted []string) {
	h, ok := a.held[addr]
	if !ok {
		h = &holding{group: req.group(), users: map[string][]Port{}}
		a.held[addr] = h
	}
	h.users[req.Service] = req.Ports
	if h.owner == "" {
		h.owner = req.Service
	}
	if h.owner != req.Service {
		return nil
	}
	joined := h.group
	h.group = req.group()
	for _, svc := range slices.Sorted(maps.Keys(h.users)) {
		if svc == req.Service || !slices.Contains(a.byService[svc], addr) {
			continue
		}
		if _, clash := commonPort(h.users[svc], req.Ports); clash || joined != h.group {
			a.byService[svc] = slices.DeleteFunc(slices.Clone(a.byService[svc]), func(b netip.Addr) bool { return b == addr })
			if len(a.byService[svc]) == 0 {
				delete(a.byService, svc)
			}
			a.shown[svc] = append(a.shown[svc], addr)
			evicted = append(evicted, svc)
		}
	}
	return evicted
}

// commonPort finds a port in both lists.
func commonPort(x, y []Port) (Port, bool) {
	for _, p := range y {
		if slices.Contains(x, p) {
			return p, true
		}
	}
	return Port{}, false
}

func requestedOf(req Request, fam corev1.IPFamily) (netip.Addr, bool) {
	for _, addr := range req.Requested {
		if familyOf(addr) == fam {
			return addr, true
		}
	}
	return netip.Addr{}, false
}
