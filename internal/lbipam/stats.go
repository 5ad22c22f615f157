package lbipam

import (
	"net/netip"
	"slices"

	corev1 "k8s.io/api/core/v1"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// FamilyCount is the total and used addresses of one family of a pool.
type FamilyCount struct {
	Total, Used int64
}

// PoolStats is what a pool's status reports.
type PoolStats struct {
	IPv4, IPv6 FamilyCount
	// Exhausted names the Services waiting for an address this pool would give them
	// but has no longer.
	Exhausted []string
}

// Stats counts a pool's addresses. Used counts an address once however many Services
// share it.
func (a *Allocator) Stats(pool string) PoolStats {
	i := slices.IndexFunc(a.pools, func(p Pool) bool { return p.Name == pool })
	if i < 0 {
		return PoolStats{}
	}
	p := &a.pools[i]
	st := PoolStats{IPv4: FamilyCount{Total: p.size(corev1.IPv4Protocol)}, IPv6: FamilyCount{Total: p.size(corev1.IPv6Protocol)}}
	for addr := range a.held {
		if a.poolOf(addr) != p {
			continue
		}
		if addr.Is4() {
			st.IPv4.Used++
		} else {
			st.IPv6.Used++
		}
	}
	for svc, pools := range a.short {
		if slices.Contains(pools, pool) {
			st.Exhausted = append(st.Exhausted, svc)
		}
	}
	slices.Sort(st.Exhausted)
	return st
}

// PoolOf names the pool an address is counted in: the first, by name, that holds it.
// Empty when no pool does.
func (a *Allocator) PoolOf(addr netip.Addr) string {
	if p := a.poolOf(addr); p != nil {
		return p.Name
	}
	return ""
}

func (a *Allocator) poolOf(addr netip.Addr) *Pool {
	for i := range a.pools {
		if a.pools[i].contains(addr) {
			return &a.pools[i]
		}
	}
	return nil
}

// Overlaps names, per pool, the other pools sharing an address with it.
func Overlaps(pools []Pool) map[string][]string {
	out := map[string][]string{}
	for i := range pools {
		for j := i + 1; j < len(pools); j++ {
			if rangesOverlap(pools[i].Ranges, pools[j].Ranges) {
				out[pools[i].Name] = append(out[pools[i].Name], pools[j].Name)
				out[pools[j].Name] = append(out[pools[j].Name], pools[i].Name)
			}
		}
	}
	for name := range out {
		slices.Sort(out[name])
	}
	return out
}

func rangesOverlap(a, b []kbgpv1.AddressRange) bool {
	for _, x := range a {
		for _, y := range b {
			if x.First.Is4() == y.First.Is4() && x.First.Compare(y.Last) <= 0 && y.First.Compare(x.Last) <= 0 {
				return true
			}
		}
	}
	return false
}
