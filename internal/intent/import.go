package intent

import (
	"net/netip"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
)

// routeImport is a family's import policy with its defaults and each prefix's ge/le
// resolved (as FRR's prefix lists: neither, the prefix exactly; only ge, up to the
// address length; only le, from the prefix's length). A prefix the API server's
// validation would refuse (not a CIDR of the family) matches nothing.
func routeImport(in kbgpv1.RouteImport, fam bgp.Family) bgp.RouteImport {
	out := bgp.RouteImport{AllowDefaultRoute: in.AllowDefaultRoute, MaxRoutes: kbgpv1.DefaultImportMaxRoutes}
	if in.MaxRoutes != nil {
		out.MaxRoutes = int(*in.MaxRoutes)
	}
	for _, p := range in.Prefixes {
		prefix, err := netip.ParsePrefix(string(p.Prefix))
		if err != nil || prefix.Addr().Is4() != (fam == bgp.FamilyIPv4Unicast) {
			continue
		}
		prefix = prefix.Masked()
		m := bgp.PrefixMatch{Prefix: prefix, MinLen: prefix.Bits(), MaxLen: prefix.Bits()}
		if p.GE != nil {
			m.MinLen, m.MaxLen = int(*p.GE), prefix.Addr().BitLen()
		}
		if p.LE != nil {
			m.MaxLen = int(*p.LE)
		}
		out.Prefixes = append(out.Prefixes, m)
	}
	return out
}
