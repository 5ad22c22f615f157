package kubectlbgp

import (
	"context"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/intent"
)

// Routes are not in the API (status holds per-peer counts only), so the plugin computes
// them with the agent's own pure code, intent.Build, from the objects the agent reads.
// What the plugin cannot see is replaced by values that do not change what is
// advertised, and each replacement is said in a note.

// placeholderRouterID stands in for a router ID the agent has not reported: a router ID
// never changes which prefixes a peer is sent.
var placeholderRouterID = netip.MustParseAddr("0.0.0.1")

// clusterInput is what every node's computation reads.
type clusterInput struct {
	peerConfigs    map[string]*kbgpv1.BGPPeerConfig
	advertisements []kbgpv1.BGPAdvertisement
	services       []corev1.Service
	endpointSlices map[types.NamespacedName][]discoveryv1.EndpointSlice
}

// fetchClusterInput lists the peer configs, advertisements, Services and
// EndpointSlices once for all nodes.
func fetchClusterInput(ctx context.Context, r client.Reader) (clusterInput, error) {
	var pcs kbgpv1.BGPPeerConfigList
	var ads kbgpv1.BGPAdvertisementList
	var svcs corev1.ServiceList
	var eps discoveryv1.EndpointSliceList
	for _, l := range []struct {
		kind string
		list client.ObjectList
	}{{"BGPPeerConfigs", &pcs}, {"BGPAdvertisements", &ads}, {"Services", &svcs}, {"EndpointSlices", &eps}} {
		if err := r.List(ctx, l.list); err != nil {
			return clusterInput{}, fmt.Errorf("list %s: %w", l.kind, err)
		}
	}
	out := clusterInput{peerConfigs: map[string]*kbgpv1.BGPPeerConfig{}, advertisements: ads.Items, services: svcs.Items,
		endpointSlices: map[types.NamespacedName][]discoveryv1.EndpointSlice{}}
	for i := range pcs.Items {
		out.peerConfigs[pcs.Items[i].Name] = &pcs.Items[i]
	}
	for _, s := range eps.Items {
		if svc, ok := intent.EndpointSliceService(&s); ok {
			out.endpointSlices[svc] = append(out.endpointSlices[svc], s)
		}
	}
	return out, nil
}

// nodeRoutesInput completes intent's input for one node: its Node, the Secrets its peer
// configs name (or placeholders) and its router IDs from status (or placeholders).
func nodeRoutesInput(ctx context.Context, r client.Reader, nc *kbgpv1.BGPNodeConfig, objs clusterInput, agentNamespace string) (intent.Input, []string) {
	in := intent.Input{NodeConfig: nc, PeerConfigs: objs.peerConfigs, Secrets: map[string]*corev1.Secret{},
		Advertisements: objs.advertisements, Services: objs.services, EndpointSlices: objs.endpointSlices,
		RouterIDs: map[int64]netip.Addr{}}
	var notes []string
	node := &corev1.Node{}
	if err := r.Get(ctx, types.NamespacedName{Name: nc.Name}, node); err != nil {
		notes = append(notes, fmt.Sprintf("node %s: %v: no pod CIDRs and no Local endpoints can be computed", nc.Name, err))
	} else {
		in.Node = node
	}
	for _, name := range referencedSecrets(nc, objs.peerConfigs) {
		s := &corev1.Secret{}
		if err := r.Get(ctx, types.NamespacedName{Namespace: agentNamespace, Name: name}, s); err == nil {
			in.Secrets[name] = s
			continue
		}
		// The password never changes what is advertised; only whether the session
		// starts, which the agent's status reports.
		in.Secrets[name] = &corev1.Secret{Data: map[string][]byte{"password": []byte("placeholder")}}
		notes = append(notes, fmt.Sprintf("Secret %s/%s not readable: routes computed as if it existed (see kubectl bgp peers for the session)", agentNamespace, name))
	}
	reported := map[int64]string{}
	for _, inst := range nc.Status.BGPInstances {
		reported[inst.LocalASN] = inst.RouterID
	}
	for _, inst := range nc.Spec.BGPInstances {
		if id, err := netip.ParseAddr(reported[inst.LocalASN]); err == nil {
			in.RouterIDs[inst.LocalASN] = id
			continue
		}
		in.RouterIDs[inst.LocalASN] = placeholderRouterID
		notes = append(notes, fmt.Sprintf("instance %d: no router ID reported yet; routes computed anyway", inst.LocalASN))
	}
	return in, notes
}

// referencedSecrets are the Secrets of the node's peer configs, sorted.
func referencedSecrets(nc *kbgpv1.BGPNodeConfig, pcs map[string]*kbgpv1.BGPPeerConfig) []string {
	set := map[string]bool{}
	for _, inst := range nc.Spec.BGPInstances {
		for _, p := range inst.Peers {
			if p.PeerConfigRef == nil {
				continue
			}
			if pc, ok := pcs[p.PeerConfigRef.Name]; ok && pc.Spec.AuthSecretRef != nil {
				set[*pc.Spec.AuthSecretRef] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(set))
}

func routesHeader(wide bool) []string {
	h := []string{"NODE", "INSTANCE", "PEER", "PREFIX", "COMMUNITIES"}
	if wide {
		h = append(h, "LARGE-COMMUNITIES", "LOCAL-PREF")
	}
	return h
}

// routeRows lists what each peer of the node must be sent, sorted by instance, peer
// and prefix.
func routeRows(node string, d bgp.Desired, wide bool) [][]string {
	var rows [][]string
	for _, key := range slices.SortedFunc(maps.Keys(d.Instances), bgp.InstanceKey.Compare) {
		inst := d.Instances[key]
		for _, name := range slices.Sorted(maps.Keys(inst.Peers)) {
			export := inst.Peers[name].Export
			for _, p := range slices.SortedFunc(maps.Keys(export), bgp.ComparePrefix) {
				a := export[p]
				row := []string{cell(node), key.String(), cell(name), p.String(), joinOrDash(a.Communities, intent.FormatStandardCommunity)}
				if wide {
					lp := "-"
					if a.LocalPreference != nil {
						lp = strconv.FormatUint(uint64(*a.LocalPreference), 10)
					}
					row = append(row, joinOrDash(a.LargeCommunities, intent.FormatLargeCommunity), lp)
				}
				rows = append(rows, row)
			}
		}
	}
	return rows
}

// countLines compares, per peer, the computed count with the agent's reported
// routesAdvertised; a difference is flagged (the agent lagging, a peer down, or a
// cause in its status).
func countLines(nc *kbgpv1.BGPNodeConfig, d bgp.Desired) []string {
	reported := map[string]int64{}
	for _, inst := range nc.Status.BGPInstances {
		for _, p := range inst.Peers {
			reported[bgp.InstanceKey{LocalASN: uint32(inst.LocalASN), VRF: p.VRF}.String()+"/"+p.Name] = p.RoutesAdvertised
		}
	}
	var out []string
	for _, key := range slices.SortedFunc(maps.Keys(d.Instances), bgp.InstanceKey.Compare) {
		inst := d.Instances[key]
		for _, name := range slices.Sorted(maps.Keys(inst.Peers)) {
			n := len(inst.Peers[name].Export)
			got, ok := reported[key.String()+"/"+name]
			line := fmt.Sprintf("%s %s %s: %d computed, ", cell(nc.Name), key, cell(name), n)
			switch {
			case !ok:
				line += "none reported"
			case got == int64(n):
				line += fmt.Sprintf("%d reported", got)
			default:
				line += fmt.Sprintf("%d reported (differs: see kubectl bgp peers and kubectl bgp explain %s)", got, cell(nc.Name))
			}
			out = append(out, line)
		}
	}
	return out
}

func joinOrDash[T any](vs []T, format func(T) string) string {
	if len(vs) == 0 {
		return "-"
	}
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = format(v)
	}
	return strings.Join(s, ",")
}
