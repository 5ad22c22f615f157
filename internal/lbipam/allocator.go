package lbipam

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Allocator holds which Service holds which address. It is not safe for concurrent
// use: the operator's controller allocates one Service at a time.
type Allocator struct {
	pools []Pool // by name
	held  map[netip.Addr]*holding
	// byService are the addresses each Service holds, in its families' order.
	byService map[string][]netip.Addr
	// short are, per waiting Service, the pools that would serve it but had no address
	// left: what makes a pool Exhausted.
	short map[string][]string
}

// holding is one address and the Services holding it: one, or several with one
// sharing key and no common port.
type holding struct {
	sharingKey string
	users      map[string][]Port
}

// New returns an allocator with no pools.
func New() *Allocator {
	return &Allocator{held: map[netip.Addr]*holding{}, byService: map[string][]netip.Addr{}, short: map[string][]string{}}
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
}

// Pending reports whether the Service waits for an address it requires.
func (r Result) Pending() bool { return len(r.Addresses) == 0 && len(r.Problems) > 0 }

// Restore records the addresses a Service holds in its status, at start, before any
// Service is assigned: those that still lie in a pool serving it and that no Service
// restored before holds (unless shared). The controller restores Services oldest
// first, so in a double allocation the older Service keeps the address.
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
}

// Assign decides the Service's addresses: it keeps what it holds while still valid,
// takes the requested ones, shares by sharing key, or takes the lowest free address of
// the first pool (by name) that serves it.
func (a *Allocator) Assign(req Request) Result {
	previous := append(slices.Clone(a.byService[req.Service]), req.Current...)
	a.Release(req.Service)
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
		a.hold(req, addr)
		res.Addresses = append(res.Addresses, addr)
	}
	a.byService[req.Service] = res.Addresses
	if len(res.Problems) > 0 {
		// A required family is unmet: the Service waits with nothing rather than
		// holding addresses another Service could use.
		a.Release(req.Service)
		res.Addresses = nil
		a.short[req.Service] = slices.Compact(slices.Sorted(slices.Values(short)))
	} else if len(res.Addresses) == 0 {
		delete(a.byService, req.Service)
	}
	return res
}

// Release gives back every address the Service holds.
func (a *Allocator) Release(service string) {
	for _, addr := range a.byService[service] {
		h := a.held[addr]
		delete(h.users, service)
		if len(h.users) == 0 {
			delete(a.held, addr)
		}
	}
	delete(a.byService, service)
	delete(a.short, service)
}

// Holds returns the addresses a Service holds.
func (a *Allocator) Holds(service string) []netip.Addr { return slices.Clone(a.byService[service]) }

// keepable finds, among candidates, an address of family fam the Service may keep: in
// a pool serving it (a disabled one too: disabling stops new allocations only), equal
// to what it requests for that family if it requests one, and free or shareable.
func (a *Allocator) keepable(req Request, fam corev1.IPFamily, candidates []netip.Addr) (netip.Addr, bool) {
	want, requested := requestedOf(req, fam)
	for _, addr := range candidates {
		if familyOf(addr) != fam || (requested && addr != want) {
			continue
		}
		if a.servingPool(req, addr) != nil && a.free(req, addr) == "" {
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

// shared finds an address held under the Service's sharing key, of family fam, in a
// pool serving it, with no port in common: the lowest, so every Service of one key
// converges on the same address.
func (a *Allocator) shared(req Request, fam corev1.IPFamily) (netip.Addr, bool) {
	var found []netip.Addr
	for addr, h := range a.held {
		if h.sharingKey == req.SharingKey && familyOf(addr) == fam && a.servingPool(req, addr) != nil && a.free(req, addr) == "" {
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
		if r.Family() != fam {
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
	if req.SharingKey == "" || h.sharingKey != req.SharingKey {
		return fmt.Sprintf("address %s is held by %s (sharing needs the same %q annotation)", addr, strings.Join(others, ", "), "kbgp.io/sharing-key")
	}
	for _, svc := range others {
		for _, p := range req.Ports {
			if slices.Contains(h.users[svc], p) {
				return fmt.Sprintf("address %s is shared with %s, which already uses port %d/%s", addr, svc, p.Port, p.Protocol)
			}
		}
	}
	return ""
}

func (a *Allocator) hold(req Request, addr netip.Addr) {
	h, ok := a.held[addr]
	if !ok {
		h = &holding{sharingKey: req.SharingKey, users: map[string][]Port{}}
		a.held[addr] = h
	}
	h.users[req.Service] = req.Ports
}

func requestedOf(req Request, fam corev1.IPFamily) (netip.Addr, bool) {
	for _, addr := range req.Requested {
		if familyOf(addr) == fam {
			return addr, true
		}
	}
	return netip.Addr{}, false
}
