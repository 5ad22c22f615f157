package gobgp

import (
	"context"
	"fmt"
	"net/netip"

	"github.com/osrg/gobgp/v4/pkg/apiutil"
	gobgppacket "github.com/osrg/gobgp/v4/pkg/packet/bgp"

	"kbgp.io/kbgp/internal/bgp"
)

// AddPaths originates paths in one GoBGP call.
func (r *router) AddPaths(ctx context.Context, paths []bgp.Path) error {
	if len(paths) == 0 {
		return nil
	}
	req := apiutil.AddPathRequest{Paths: make([]*apiutil.Path, 0, len(paths))}
	for _, p := range paths {
		ap, err := toAPIPath(p.Prefix, p.Attributes, false)
		if err != nil {
			return err
		}
		req.Paths = append(req.Paths, ap)
	}
	if _, err := r.srv.AddPath(req); err != nil {
		return fmt.Errorf("add %d paths: %w", len(paths), err)
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
		ap, err := toAPIPath(p, bgp.PathAttributes{}, true)
		if err != nil {
			return err
		}
		req.Paths = append(req.Paths, ap)
	}
	if err := r.srv.DeletePath(req); err != nil {
		return fmt.Errorf("delete %d paths: %w", len(prefixes), err)
	}
	return nil
}

// toAPIPath builds a locally originated path: origin IGP and an unspecified next hop,
// which GoBGP replaces with the session's local address when it sends the path.
func toAPIPath(prefix netip.Prefix, attrs bgp.PathAttributes, withdraw bool) (*apiutil.Path, error) {
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
	list := []gobgppacket.PathAttributeInterface{gobgppacket.NewPathAttributeOrigin(gobgppacket.BGP_ORIGIN_ATTR_TYPE_IGP)}
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
	if len(attrs.Communities) > 0 {
		list = append(list, gobgppacket.NewPathAttributeCommunities(attrs.Communities))
	}
	if len(attrs.LargeCommunities) > 0 {
		lcs := make([]*gobgppacket.LargeCommunity, 0, len(attrs.LargeCommunities))
		for _, c := range attrs.LargeCommunities {
			lcs = append(lcs, gobgppacket.NewLargeCommunity(c.GlobalAdmin, c.LocalData1, c.LocalData2))
		}
		list = append(list, gobgppacket.NewPathAttributeLargeCommunities(lcs))
	}
	if attrs.LocalPreference != nil {
		list = append(list, gobgppacket.NewPathAttributeLocalPref(*attrs.LocalPreference))
	}
	return &apiutil.Path{Family: family, Nlri: nlri, Attrs: list, Withdrawal: withdraw}, nil
}
