package adjrib

import (
	"cmp"
	"context"
	"maps"
	"net/netip"
	"slices"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/adjribapi"
	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/speakers"
)

// Source is what the speakers run, with each session's state, and what each peer's
// Adj-RIB holds (speakers.Set).
type Source interface {
	Snapshot(ctx context.Context) (map[bgp.InstanceKey]speakers.InstanceSnapshot, error)
	AdjRIB(ctx context.Context, ref speakers.PeerRef, side bgp.AdjRIB) ([]bgp.ReceivedRoute, error)
}

// Kernel says whether a peer's route is in the node's kernel, and if not, why: the
// agent's route installer (routes.Installer.RouteState).
type Kernel interface {
	RouteState(peer netip.Addr, prefix netip.Prefix) (installed bool, reason string)
}

// runningPeer is one peer of the snapshot.
type runningPeer struct {
	ref  speakers.PeerRef
	snap speakers.PeerSnapshot
}

// runningPeers lists the snapshot's peers in the answer's order. A snapshot that
// failed for some speaker still lists their peers (with the state it could not read
// left Idle, as Snapshot reports them).
func runningPeers(snap map[bgp.InstanceKey]speakers.InstanceSnapshot) []runningPeer {
	var out []runningPeer
	for _, key := range slices.SortedFunc(maps.Keys(snap), bgp.InstanceKey.Compare) {
		for _, name := range slices.Sorted(maps.Keys(snap[key].Peers)) {
			out = append(out, runningPeer{ref: speakers.PeerRef{Instance: key, Name: name}, snap: snap[key].Peers[name]})
		}
	}
	return out
}

// compareRef orders peers by instance, then name: the order of the answer.
func compareRef(a, b speakers.PeerRef) int {
	return cmp.Or(a.Instance.Compare(b.Instance), cmp.Compare(a.Name, b.Name))
}

// page answers q from src: the peers after q.after in order, each peer's routes that
// pass the filters, up to q.limit routes, a received route of the default VRF with its
// state in the kernel (kernel nil: the agent installs no routes; a VRF's never are).
// Each peer's Adj-RIB is listed whole and filtered here (the speaker pages nothing), so
// a page of a large table costs the listing of its peer's table.
func page(ctx context.Context, src Source, kernel Kernel, node string, q query) adjribapi.Routes {
	out := adjribapi.Routes{Node: node, Side: string(q.side), Peers: []adjribapi.Peer{}}
	n := 0
	var last position
	snap, _ := src.Snapshot(ctx)
	for _, rp := range runningPeers(snap) {
		if q.peer != "" && rp.ref.Name != q.peer {
			continue
		}
		resumed := q.after != nil && compareRef(rp.ref, q.after.ref) == 0
		if q.after != nil && compareRef(rp.ref, q.after.ref) < 0 {
			continue
		}
		p := adjribapi.Peer{LocalASN: rp.ref.Instance.LocalASN, VRF: rp.ref.Instance.VRF, Name: rp.ref.Name, Address: rp.snap.Peer.Address.String(),
			State: string(rp.snap.Status.State), Routes: []adjribapi.Route{}}
		routes, err := src.AdjRIB(ctx, rp.ref, q.side)
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
			rt := route(r)
			if kernel != nil && q.side == bgp.AdjRIBIn && rp.ref.Instance.VRF == "" {
				rt.Kernel = kernelState(kernel, rp.snap.Peer.Address, rp.ref.Instance.LocalASN, r)
			}
			p.Routes = append(p.Routes, rt)
			n++
			last = position{ref: rp.ref, prefix: r.Prefix}
		}
		out.Peers = append(out.Peers, p)
	}
	return out
}

// kernelState is what became of peer's route r in the kernel. A route whose AS path
// holds the node's AS is said so: the speaker never passes it on, so the installer
// never heard of it.
func kernelState(kernel Kernel, peer netip.Addr, localASN uint32, r bgp.ReceivedRoute) *adjribapi.Kernel {
	if slices.Contains(r.ASPath, localASN) {
		return &adjribapi.Kernel{Reason: adjribapi.ReasonASPathLoop}
	}
	installed, reason := kernel.RouteState(peer, r.Prefix)
	return &adjribapi.Kernel{Installed: installed, Reason: reason}
}

// route is r as the answer shows it.
func route(r bgp.ReceivedRoute) adjribapi.Route {
	out := adjribapi.Route{Prefix: r.Prefix.String(), ASPath: r.ASPath, LocalPreference: r.Attributes.LocalPreference, Origin: string(r.Origin),
		MED: r.Attributes.MED}
	if lb := r.Attributes.LinkBandwidth; lb.BytesPerSecond != 0 {
		out.LinkBandwidth = &adjribapi.LinkBandwidth{ASN: lb.ASN, BytesPerSecond: lb.BytesPerSecond}
	}
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
