package gobgp

import (
	"context"
	"fmt"
	"net/netip"

	"github.com/osrg/gobgp/v4/pkg/apiutil"
	gobgppacket "github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// addPaths originates the prefixes that some peer exports, in one GoBGP call; every
// peer's export policy then sets that peer's attributes. The caller holds exportMu.
//
// Re-adding an originated prefix must re-run the export policies (that is how a peer's
// new export of it takes effect), but GoBGP propagates a replaced path only when it
// differs from the old one. So a re-added path flips its ORIGIN between IGP and
// INCOMPLETE: the path differs, GoBGP sends it through every export policy, and every
// export statement sets ORIGIN back to IGP, so no peer ever sees the flip. Peers whose
// export of the prefix did not change get it again unchanged, which BGP treats as an
// implicit replace.
func (r *router) addPaths(ctx context.Context, prefixes []netip.Prefix) error {
	var add []netip.Prefix
	var flipped []bool
	req := apiutil.AddPathRequest{}
	for _, p := range prefixes {
		st := r.prefix(p)
		if st.refs == 0 {
			delete(r.resend, p)
			continue
		}
		flip := st.originated && !st.flipped
		ap, err := toAPIPath(p, flip, false)
		if err != nil {
			return err
		}
		add, flipped, req.Paths = append(add, p), append(flipped, flip), append(req.Paths, ap)
	}
	if len(add) == 0 {
		return nil
	}
	if _, err := r.srv.AddPath(req); err != nil {
		for _, p := range add {
			r.resend[p] = struct{}{}
		}
		return fmt.Errorf("add %d paths: %w", len(add), err)
	}
	for i, p := range add {
		st := r.prefix(p)
		st.originated, st.flipped = true, flipped[i]
		r.setPrefix(p, st)
		delete(r.resend, p)
	}
	return nil
}

// deletePaths withdraws paths by prefix in one GoBGP call. Deleting by path rather than
// by UUID keeps the adapter free of a UUID table. The caller holds exportMu.
func (r *router) deletePaths(ctx context.Context, prefixes []netip.Prefix) error {
	if len(prefixes) == 0 {
		return nil
	}
	req := apiutil.DeletePathRequest{Paths: make([]*apiutil.Path, 0, len(prefixes))}
	for _, p := range prefixes {
		ap, err := toAPIPath(p, false, true)
		if err != nil {
			return err
		}
		req.Paths = append(req.Paths, ap)
	}
	if err := r.srv.DeletePath(req); err != nil {
		return fmt.Errorf("delete %d paths: %w", len(prefixes), err)
	}
	for _, p := range prefixes {
		st := r.prefix(p)
		st.originated, st.flipped = false, false
		r.setPrefix(p, st)
		delete(r.resend, p)
	}
	return nil
}

// toAPIPath builds a locally originated path: origin IGP (INCOMPLETE when flipped, see
// addPaths), an unspecified next hop, which GoBGP replaces with the session's local
// address when it sends the path, and no other attributes: each peer's export policy
// sets that peer's.
func toAPIPath(prefix netip.Prefix, flipped, withdraw bool) (*apiutil.Path, error) {
	nlri, err := gobgppacket.NewIPAddrPrefix(prefix.Masked())
	if err != nil {
		return nil, fmt.Errorf("prefix %s: %w", prefix, err)
	}
	origin := originIGP
	if flipped {
		origin = originIncomplete
	}
	if prefix.Addr().Is4() {
		return &apiutil.Path{Family: gobgppacket.RF_IPv4_UC, Nlri: nlri, Attrs: []gobgppacket.PathAttributeInterface{origin, nextHopUnspecifiedV4}, Withdrawal: withdraw}, nil
	}
	mp, err := gobgppacket.NewPathAttributeMpReachNLRI(gobgppacket.RF_IPv6_UC, []gobgppacket.PathNLRI{{NLRI: nlri}}, netip.IPv6Unspecified())
	if err != nil {
		return nil, err
	}
	return &apiutil.Path{Family: gobgppacket.RF_IPv6_UC, Nlri: nlri, Attrs: []gobgppacket.PathAttributeInterface{origin, mp}, Withdrawal: withdraw}, nil
}

// The attributes every originated IPv4 path carries, shared by all of them: GoBGP
// replaces a path's attribute rather than changing it (policy actions, next-hop-self),
// so 100,000 paths need not hold 100,000 equal ORIGINs. (GoBGP gives each path a
// NEXT_HOP of its own all the same, so sharing that one saves nothing; the heap
// profiles in bench/RESULTS.md show it.) An IPv6 path's MP_REACH_NLRI holds its prefix
// and cannot be shared.
var (
	originIGP            = gobgppacket.NewPathAttributeOrigin(gobgppacket.BGP_ORIGIN_ATTR_TYPE_IGP)
	originIncomplete     = gobgppacket.NewPathAttributeOrigin(gobgppacket.BGP_ORIGIN_ATTR_TYPE_INCOMPLETE)
	nextHopUnspecifiedV4 = must(gobgppacket.NewPathAttributeNextHop(netip.IPv4Unspecified()))
)

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
