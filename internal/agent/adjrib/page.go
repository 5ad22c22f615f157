package adjrib

import (
	"cmp"
	"context"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/adjribapi"
	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/speakers"
)

// Source is what the speakers run and what each peer's Adj-RIB holds (speakers.Set).
type Source interface {
	RunningPeers() []speakers.RunningPeer
	AdjRIB(ctx context.Context, ref speakers.PeerRef, side bgp.AdjRIB) ([]bgp.ReceivedRoute, error)
}

// compareRef orders peers by instance, then name: the order of the answer.
func compareRef(a, b speakers.PeerRef) int {
	return cmp.Or(a.Instance.Compare(b.Instance), cmp.Compare(a.Name, b.Name))
}

// page answers q from src: the peers after q.after in order, each peer's routes that
// pass the filters, up to q.limit routes. Each peer's Adj-RIB is listed whole and
// filtered here (the speaker pages nothing), so a page of a large table costs the
// listing of its peer's table.
func page(ctx context.Context, src Source, node string, q query) adjribapi.Routes {
	out := adjribapi.Routes{Node: node, Side: string(q.side), Peers: []adjribapi.Peer{}}
	n := 0
	var last position
	for _, rp := range src.RunningPeers() {
		if q.peer != "" && rp.Ref.Name != q.peer {
			continue
		}
		resumed := q.after != nil && compareRef(rp.Ref, q.after.ref) == 0
		if q.after != nil && compareRef(rp.Ref, q.after.ref) < 0 {
			continue
		}
		p := adjribapi.Peer{LocalASN: rp.Ref.Instance.LocalASN, VRF: rp.Ref.Instance.VRF, Name: rp.Ref.Name, Address: rp.Peer.Address.String(),
			Routes: []adjribapi.Route{}}
		routes, err := src.AdjRIB(ctx, rp.Ref, q.side)
		if err != nil {
			p.Error = err.Error()
		}
		for _, r := range routes {
			if !q.keeps(r.Prefix) || (resumed && bgp.ComparePrefix(r.Prefix, q.after.prefix) <= 0) {
				continue
			}
			if n == q.limit {
				out.Continue = encodeToken(last)
				if len(p.Routes) > 0 {
					out.Peers = append(out.Peers, p)
				}
				return out
			}
			p.Routes = append(p.Routes, route(r))
			n++
			last = position{ref: rp.Ref, prefix: r.Prefix}
		}
		out.Peers = append(out.Peers, p)
	}
	return out
}

// route is r as the answer shows it.
func route(r bgp.ReceivedRoute) adjribapi.Route {
	out := adjribapi.Route{Prefix: r.Prefix.String(), ASPath: r.ASPath, LocalPreference: r.Attributes.LocalPreference, Origin: string(r.Origin)}
	if r.NextHop.IsValid() {
		out.NextHop = r.NextHop.String()
	}
	for _, c := range r.Attributes.Communities {
		out.Communities = append(out.Communities, string(kbgpv1.StandardCommunityOf(c)))
	}
	for _, c := range r.Attributes.LargeCommunities {
		out.LargeCommunities = append(out.LargeCommunities, string(kbgpv1.LargeCommunityOf([3]uint32{c.GlobalAdmin, c.LocalData1, c.LocalData2})))
	}
	return out
}
