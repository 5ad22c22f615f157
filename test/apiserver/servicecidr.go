package apiserver

import (
	"context"
	"encoding/binary"
	"fmt"
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/types"
)

// FreeServiceCIDRAddress is an IPv4 address of the API server's ServiceCIDR kubernetes
// (its --service-cluster-ip-range) that no Service holds as its cluster IP, and that
// range. It is taken from the top of the range down; the allocator starts from a
// random offset, so the list of Services says which addresses are held.
func (s *Server) FreeServiceCIDRAddress(ctx context.Context) (netip.Addr, netip.Prefix, error) {
	sc := &networkingv1.ServiceCIDR{}
	if err := s.Client.Get(ctx, types.NamespacedName{Name: "kubernetes"}, sc); err != nil {
		return netip.Addr{}, netip.Prefix{}, fmt.Errorf("get ServiceCIDR kubernetes: %w", err)
	}
	var cidr netip.Prefix
	for _, c := range sc.Spec.CIDRs {
		if p, err := netip.ParsePrefix(c); err == nil && p.Addr().Is4() {
			cidr = p.Masked()
		}
	}
	if !cidr.IsValid() {
		return netip.Addr{}, netip.Prefix{}, fmt.Errorf("ServiceCIDR kubernetes has no IPv4 range: %v", sc.Spec.CIDRs)
	}
	svcs := &corev1.ServiceList{}
	if err := s.Client.List(ctx, svcs); err != nil {
		return netip.Addr{}, netip.Prefix{}, err
	}
	held := map[string]bool{}
	for _, svc := range svcs.Items {
		for _, ip := range svc.Spec.ClusterIPs {
			held[ip] = true
		}
	}
	b := cidr.Addr().As4()
	var last [4]byte
	binary.BigEndian.PutUint32(last[:], binary.BigEndian.Uint32(b[:])|(1<<(32-cidr.Bits())-1))
	// Not the broadcast address, which the allocator never hands out either.
	for a := netip.AddrFrom4(last).Prev(); cidr.Contains(a); a = a.Prev() {
		if !held[a.String()] {
			return a, cidr, nil
		}
	}
	return netip.Addr{}, netip.Prefix{}, fmt.Errorf("no free address in %s", cidr)
}
