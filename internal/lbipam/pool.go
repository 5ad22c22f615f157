package lbipam

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// Pool is a LoadBalancerIPPool as the allocator uses it.
type Pool struct {
	Name   string
	Ranges []kbgpv1.AddressRange
	// Selector selects the Services the pool serves; nil serves every Service.
	Selector      labels.Selector
	AvoidBuggyIPs bool
	Disabled      bool
}

// NewPool converts a LoadBalancerIPPool. Blocks the schema cannot refuse alone (a stop
// below its start) are left out and reported; the pool serves from the others, so one
// bad block does not take away the addresses Services already hold in the good ones.
func NewPool(p *kbgpv1.LoadBalancerIPPool) (Pool, error) {
	out := Pool{Name: p.Name, AvoidBuggyIPs: p.Spec.AvoidBuggyIPs, Disabled: p.Spec.Disabled}
	var errs []error
	for i, b := range p.Spec.Blocks {
		r, err := b.Range()
		if err != nil {
			errs = append(errs, fmt.Errorf("blocks[%d]: %w", i, err))
			continue
		}
		out.Ranges = append(out.Ranges, r)
	}
	if p.Spec.ServiceSelector != nil {
		sel, err := metav1.LabelSelectorAsSelector(p.Spec.ServiceSelector.ToMetav1())
		if err != nil {
			// The schema validates selectors; one that still fails serves nothing
			// rather than everything.
			errs = append(errs, fmt.Errorf("serviceSelector: %w", err))
			sel = labels.Nothing()
		}
		out.Selector = sel
	}
	return out, errors.Join(errs...)
}

func (p *Pool) serves(lbls labels.Set) bool {
	return p.Selector == nil || p.Selector.Matches(lbls)
}

// contains reports whether a lies in the pool and may be handed out.
func (p *Pool) contains(a netip.Addr) bool {
	if p.AvoidBuggyIPs && buggy(a) {
		return false
	}
	for _, r := range p.Ranges {
		if r.Contains(a) {
			return true
		}
	}
	return false
}

func (p *Pool) hasFamily(f corev1.IPFamily) bool {
	for _, r := range p.Ranges {
		if familyOf(r.First) == f {
			return true
		}
	}
	return false
}

// buggy reports an IPv4 address ending in .0 or .255, which some clients and routers
// drop as a network or broadcast address even inside a larger prefix.
func buggy(a netip.Addr) bool {
	if !a.Is4() {
		return false
	}
	last := a.As4()[3]
	return last == 0 || last == 255
}

// size counts the addresses of family f the pool can hand out, saturating at
// math.MaxInt64 (an IPv6 /64 holds 2^64).
func (p *Pool) size(f corev1.IPFamily) int64 {
	total := new(big.Int)
	for _, r := range p.Ranges {
		if familyOf(r.First) != f {
			continue
		}
		n := new(big.Int).Sub(new(big.Int).SetBytes(r.Last.AsSlice()), new(big.Int).SetBytes(r.First.AsSlice()))
		n.Add(n, big.NewInt(1))
		if p.AvoidBuggyIPs && r.First.Is4() {
			n.Sub(n, big.NewInt(buggyIn(r)))
		}
		total.Add(total, n)
	}
	if !total.IsInt64() {
		return math.MaxInt64
	}
	return total.Int64()
}

// buggyIn counts the .0 and .255 addresses of an IPv4 range.
func buggyIn(r kbgpv1.AddressRange) int64 {
	first, last := int64(u32(r.First)), int64(u32(r.Last))
	return endingIn(first, last, 0) + endingIn(first, last, 255)
}

// endingIn counts the x in [first, last] with x mod 256 == v.
func endingIn(first, last, v int64) int64 {
	upTo := func(n int64) int64 { // x in [0, n]
		if n < v {
			return 0
		}
		return (n-v)/256 + 1
	}
	return upTo(last) - upTo(first-1)
}

func u32(a netip.Addr) uint32 {
	b := a.As4()
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

func familyOf(a netip.Addr) corev1.IPFamily {
	if a.Is4() {
		return corev1.IPv4Protocol
	}
	return corev1.IPv6Protocol
}
