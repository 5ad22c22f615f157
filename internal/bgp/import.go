package bgp

import (
	"net/netip"
	"slices"
)

// Import is what a peer family's received routes may become in the node's kernel
// (reported to the RouteSink with Importing).
type Import struct {
	// PodRoutes: other nodes' pod CIDRs, judged by the pod network.
	PodRoutes bool
	// Routes is the family's import policy; nil: none.
	Routes *RouteImport
}

// RouteImport is an import policy: the prefixes it accepts and how many of them one
// peer family may install.
type RouteImport struct {
	Prefixes []PrefixMatch
	// AllowDefaultRoute accepts 0.0.0.0/0 and ::/0, which Prefixes never do.
	AllowDefaultRoute bool
	// MaxRoutes caps the accepted routes of one peer family.
	MaxRoutes int
}

// PrefixMatch matches the prefixes inside Prefix whose length is MinLen..MaxLen (a
// prefix list entry with its ge/le resolved).
type PrefixMatch struct {
	Prefix         netip.Prefix
	MinLen, MaxLen int
}

// Matches reports whether p is inside m.Prefix, of the same family, with a length in
// MinLen..MaxLen.
func (m PrefixMatch) Matches(p netip.Prefix) bool {
	return p.Addr().Is4() == m.Prefix.Addr().Is4() && p.Bits() >= m.Prefix.Bits() &&
		p.Bits() >= m.MinLen && p.Bits() <= m.MaxLen && m.Prefix.Contains(p.Addr())
}

// Accepts reports whether the policy lets p into the kernel, the cap aside. The
// default route only with AllowDefaultRoute, whatever Prefixes say.
func (r RouteImport) Accepts(p netip.Prefix) bool {
	if p.Bits() == 0 {
		return r.AllowDefaultRoute
	}
	return slices.ContainsFunc(r.Prefixes, func(m PrefixMatch) bool { return m.Matches(p) })
}

// Imports is what the peer imports, per family: its pod-route families and its import
// policies.
func (p Peer) Imports() map[Family]Import {
	out := map[Family]Import{}
	for _, f := range p.ImportPodRoutes {
		out[f] = Import{PodRoutes: true}
	}
	for f, r := range p.ImportRoutes {
		imp := out[f]
		imp.Routes = &r
		out[f] = imp
	}
	return out
}
