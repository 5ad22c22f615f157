package gobgp

import (
	"context"
	"fmt"
	"net/netip"

	"github.com/osrg/gobgp/v4/pkg/apiutil"
	gobgppacket "github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// AddPaths originates prefixes in one GoBGP call; every peer's export policy then sets
// that peer's attributes.
//
// Re-adding an originated prefix must re-run the export policies (the Router contract),
// but GoBGP propagates a replaced path only when it differs from the old one. So a
// re-added path flips its ORIGIN between IGP and INCOMPLETE: the path differs, GoBGP
// sends it through every export policy, and every export statement sets ORIGIN back to
// IGP, so no peer ever sees the flip. Peers whose export of the prefix did not change
// get it again unchanged, which BGP treats as an implicit replace.
func (r *router) AddPaths(ctx context.Context, prefixes []netip.Prefix) error {
	if len(prefixes) == 0 {
		return nil
	}
	r.exportMu.Lock()
	defer r.exportMu.Unlock()
	flipped := make([]bool, len(prefixes))
	req := apiutil.AddPathRequest{Paths: make([]*apiutil.Path, 0, len(prefixes))}
	for i, p := range prefixes {
		if was, ok := r.originated[p]; ok {
			flipped[i] = !was
		}
		ap, err := toAPIPath(p, flipped[i], false)
		if err != nil {
			return err
		}
		req.Paths = append(req.Paths, ap)
	}
	if _, err := r.srv.AddPath(req); err != nil {
		return fmt.Errorf("add %d paths: %w", len(prefixes), err)
	}
	for i, p := range prefixes {
		r.originated[p] = flipped[i]
	}
	return nil
}

// DeletePaths withdraws paths by prefix in one GoBGP call. Deleting by path rather
// than by UUID keeps the adapter free of a UUID table.
func (r *router) DeletePaths(ctx context.Context, prefixes []netip.Prefix) error {
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
	r.exportMu.Lock()
	defer r.exportMu.Unlock()
	if err := r.srv.DeletePath(req); err != nil {
		return fmt.Errorf("delete %d paths: %w", len(prefixes), err)
	}
	for _, p := range prefixes {
		delete(r.originated, p)
	}
	return nil
}

// toAPIPath builds a locally originated path: origin IGP (INCOMPLETE when flipped, see
// AddPaths), an unspecified next hop, which GoBGP replaces with the session's local
// address when it sends the path, and no other attributes: each peer's export policy
// sets that peer's.
func toAPIPath(prefix netip.Prefix, flipped, withdraw bool) (*apiutil.Path, error) {
	nlri, err := gobgppacket.NewIPAddrPrefix(prefix.Masked())
	if err != nil {
		return nil, fmt.Errorf("prefix %s: %w", prefix, err)
	}
	family := gobgppacket.RF_IPv4_UC
	nextHop := netip.IPv4Unspecified()
	if prefix.Addr().Is6() {
		family = gobgppacket.RF_IPv6_UC
		nextHop = netip.IPv6Unspecified()
	}
	origin := uint8(gobgppacket.BGP_ORIGIN_ATTR_TYPE_IGP)
	if flipped {
		origin = gobgppacket.BGP_ORIGIN_ATTR_TYPE_INCOMPLETE
	}
	list := []gobgppacket.PathAttributeInterface{gobgppacket.NewPathAttributeOrigin(origin)}
	if family == gobgppacket.RF_IPv4_UC {
		nh, err := gobgppacket.NewPathAttributeNextHop(nextHop)
		if err != nil {
			return nil, err
		}
		list = append(list, nh)
	} else {
		mp, err := gobgppacket.NewPathAttributeMpReachNLRI(family, []gobgppacket.PathNLRI{{NLRI: nlri}}, nextHop)
		if err != nil {
			return nil, err
		}
		list = append(list, mp)
	}
	return &apiutil.Path{Family: family, Nlri: nlri, Attrs: list, Withdrawal: withdraw}, nil
}
