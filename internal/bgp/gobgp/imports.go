package gobgp

import (
	"context"
	"fmt"
	"maps"
	"net/netip"
	"reflect"
	"slices"
	"sync"
	"time"

	api "github.com/osrg/gobgp/v4/api"
	"github.com/osrg/gobgp/v4/pkg/apiutil"
	gobgppacket "github.com/osrg/gobgp/v4/pkg/packet/bgp"
	"github.com/osrg/gobgp/v4/pkg/server"

	"kbgp.io/kbgp/internal/bgp"
)

// routeFeed reports to a bgp.RouteSink what peers send in the families they import.
// GoBGP's import policy still rejects everything (the speaker's RIB never holds a
// received route, so nothing is re-advertised): the feed reads the Adj-RIB-In stream
// before policy, and the withdrawals GoBGP makes itself (a session down without
// graceful restart, a restart timer that ran out, stale routes swept after End-of-RIB).
type routeFeed struct {
	sink bgp.RouteSink
	// localAS and routerID are the speaker's, for the loop checks of the replay.
	localAS  uint32
	routerID netip.Addr

	mu sync.Mutex
	// importing is each peer's importing families and their rules.
	importing map[netip.Addr]map[bgp.Family]bgp.Import
	// detached is set when the speaker stops: the withdrawals GoBGP makes as it closes
	// the sessions are not passed on, so the installed routes outlive the agent (the
	// next one takes them over and sweeps what its peers do not send again).
	detached bool
	// watchCtx ends with the speaker; the watch starts with the first importing peer
	// (watching), so a speaker none of whose peers import pays nothing per UPDATE.
	watchCtx context.Context
	watching bool
}

// detach stops the feed for good.
func (f *routeFeed) detach() {
	f.mu.Lock()
	f.detached = true
	f.mu.Unlock()
}

var families = map[gobgppacket.Family]bgp.Family{
	gobgppacket.RF_IPv4_UC: bgp.FamilyIPv4Unicast,
	gobgppacket.RF_IPv6_UC: bgp.FamilyIPv6Unicast,
}

// watchImports starts the feed's watch; it ends with the router's state watch.
func (r *router) watchImports() error {
	err := r.srv.WatchEvent(r.feed.watchCtx, server.WatchEventMessageCallbacks{
		OnPathUpdate: func(paths []*apiutil.Path, _ time.Time) { r.feed.received(paths) },
		OnPathEor: func(p *apiutil.Path, _ time.Time) {
			if fam, ok := families[p.Family]; ok && r.feed.imports(p.PeerAddress, fam) {
				r.feed.sink.EndOfRIB(p.PeerAddress, fam)
			}
		},
	}, server.WatchUpdate(false, "", ""), server.WatchAdjInWithdraw(), server.WatchEor(false))
	if err != nil {
		return fmt.Errorf("watch received routes: %w", err)
	}
	return nil
}

func (f *routeFeed) imports(peer netip.Addr, fam bgp.Family) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, ok := f.importing[peer][fam]
	return !f.detached && ok
}

// received passes on the paths of importing peers' families.
func (f *routeFeed) received(paths []*apiutil.Path) {
	var out []bgp.PeerRoute
	for _, p := range paths {
		fam, ok := families[p.Family]
		if !ok || p.Nlri == nil || !f.imports(p.PeerAddress, fam) {
			continue
		}
		prefix, err := netip.ParsePrefix(p.Nlri.String())
		if err != nil {
			continue
		}
		out = append(out, bgp.PeerRoute{Peer: p.PeerAddress, Family: fam, Prefix: prefix, NextHop: zoned(nextHop(p), p.PeerAddress), Withdrawn: p.Withdrawal})
	}
	if len(out) > 0 {
		f.sink.Received(out)
	}
}

// nextHop is the path's NEXT_HOP, or the MP_REACH_NLRI's next hop (IPv6, or IPv4 over
// an IPv6 session).
func nextHop(p *apiutil.Path) netip.Addr {
	for _, a := range p.Attrs {
		switch v := a.(type) {
		case *gobgppacket.PathAttributeNextHop:
			return v.Value
		case *gobgppacket.PathAttributeMpReachNLRI:
			return v.Nexthop
		}
	}
	return netip.Addr{}
}

// zoned gives a link-local next hop the zone of the peer it came from: RFC 8950 and
// IPv6 next hops of a session over an interface are on that interface.
func zoned(nh, peer netip.Addr) netip.Addr {
	if nh.Is6() && nh.IsLinkLocalUnicast() && nh.Zone() == "" {
		return nh.WithZone(peer.Zone())
	}
	return nh
}

// setImports records the peer's importing families and their rules. A family it
// starts importing is fed its current Adj-RIB-In (the stream only carries what comes
// next); one whose rule changed is judged again by the sink; one it stops importing,
// or every family of a deleted peer (nil), is forgotten.
func (r *router) setImports(ctx context.Context, peer netip.Addr, fams map[bgp.Family]bgp.Import) error {
	if r.feed == nil {
		return nil
	}
	r.feed.mu.Lock()
	old := r.feed.importing[peer]
	if len(fams) == 0 {
		delete(r.feed.importing, peer)
	} else {
		r.feed.importing[peer] = maps.Clone(fams)
	}
	start := len(fams) > 0 && !r.feed.watching
	r.feed.watching = r.feed.watching || start
	r.feed.mu.Unlock()
	// Watching before the Adj-RIB-In is read below: an UPDATE in between is seen
	// twice, which the sink takes as it takes a repeated UPDATE.
	if start {
		if err := r.watchImports(); err != nil {
			r.feed.mu.Lock()
			r.feed.watching = false
			r.feed.mu.Unlock()
			return err
		}
	}
	for _, fam := range slices.Sorted(maps.Keys(old)) {
		if _, ok := fams[fam]; !ok {
			r.feed.sink.Forget(peer, fam)
		}
	}
	for _, fam := range slices.Sorted(maps.Keys(fams)) {
		was, ok := old[fam]
		if ok && reflect.DeepEqual(was, fams[fam]) {
			continue
		}
		r.feed.sink.Importing(peer, fam, fams[fam])
		if ok {
			continue // the sink has what the peer sent
		}
		if err := r.feedAdjIn(ctx, peer, fam); err != nil {
			return err
		}
	}
	return nil
}

// feedAdjIn passes on what peer already sent in fam.
func (r *router) feedAdjIn(ctx context.Context, peer netip.Addr, fam bgp.Family) error {
	gfam := gobgppacket.RF_IPv4_UC
	if fam == bgp.FamilyIPv6Unicast {
		gfam = gobgppacket.RF_IPv6_UC
	}
	var paths []*apiutil.Path
	err := r.srv.ListPath(apiutil.ListPathRequest{TableType: api.TableType_TABLE_TYPE_ADJ_IN, Name: peer.String(), Family: gfam},
		func(_ gobgppacket.NLRI, ps []*apiutil.Path) { paths = append(paths, ps...) })
	if err != nil {
		return fmt.Errorf("list routes from %s: %w", peer, err)
	}
	kept := paths[:0]
	for _, p := range paths {
		p.PeerAddress = peer
		if !looped(p, r.feed.localAS, r.feed.routerID) {
			kept = append(kept, p)
		}
	}
	r.feed.received(kept)
	return nil
}

// looped reports the paths GoBGP keeps in the Adj-RIB-In, marked rejected, but never
// passes to the live stream: an AS_PATH with the speaker's own AS (RFC 4271 9.1.2) or,
// from an iBGP peer, an ORIGINATOR_ID that is the speaker's router ID (RFC 4456 8).
// ListPath does not say which paths are rejected, so the replay checks them itself;
// otherwise what is installed would depend on when importing was switched on.
func looped(p *apiutil.Path, localAS uint32, routerID netip.Addr) bool {
	for _, a := range p.Attrs {
		switch v := a.(type) {
		case *gobgppacket.PathAttributeAsPath:
			for _, seg := range v.Value {
				if slices.Contains(seg.GetAS(), localAS) {
					return true
				}
			}
		case *gobgppacket.PathAttributeOriginatorId:
			if p.PeerASN == localAS && v.Value == routerID {
				return true
			}
		}
	}
	return false
}
