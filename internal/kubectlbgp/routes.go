package kubectlbgp

import (
	"context"
	"fmt"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"maps"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/intent"
	"kbgp.io/kbgp/internal/nodeinput"
)

// Routes are not in the API (status holds per-peer counts only), so the plugin computes
// them with the agent's own pure code, intent.Build, from the objects the agent reads.
// What the plugin cannot see is replaced by values that do not change what is
// advertised, and each replacement is said in a note.

// placeholderRouterID stands in for a router ID the agent has not reported: a router ID
// never changes which prefixes a peer is sent.
var placeholderRouterID = netip.MustParseAddr("0.0.0.1")

// nodeRoutesInput is the agent's input for one node, gathered as the agent gathers it
// (nodeinput), with what only the agent knows replaced: its Node as read now, its
// router IDs from status (or placeholders), and Secrets the user cannot read (a
// placeholder password: a password never changes what is advertised). Each replacement
// is said in a note. Unlike the agent the plugin cannot see the node's VRF devices: a
// peer in a missing VRF is computed as if it ran, and its count differs from the
// reported one; nor what the speakers run now: a peer whose objects are missing is
// computed as not running, where the agent keeps its last good configuration.
func nodeRoutesInput(ctx context.Context, r client.Reader, nc *kbgpv1.BGPNodeConfig, cluster nodeinput.Cluster, agentNamespace string) (intent.Input, []string, error) {
	var notes []string
	secret := func(ctx context.Context, name string) (*corev1.Secret, error) {
		s := &corev1.Secret{}
		if err := r.Get(ctx, types.NamespacedName{Namespace: agentNamespace, Name: name}, s); err == nil {
			return s, nil
		}
		notes = append(notes, fmt.Sprintf("Secret %s/%s not readable: routes computed as if it existed (see kubectl bgp peers for the session)", agentNamespace, name))
		return &corev1.Secret{Data: map[string][]byte{"password": []byte("placeholder")}}, nil
	}
	in, err := nodeinput.ForNode(ctx, nodeinput.Sources{Reader: r, Secret: secret}, cluster, nc)
	if err != nil {
		return in, nil, err
	}
	node := &corev1.Node{}
	if err := r.Get(ctx, types.NamespacedName{Name: nc.Name}, node); err != nil {
		notes = append(notes, fmt.Sprintf("node %s: %v: no pod CIDRs and no Local endpoints can be computed", nc.Name, err))
	} else {
		in.Node = node
	}
	reported := map[int64]string{}
	for _, inst := range nc.Status.BGPInstances {
		reported[inst.LocalASN] = inst.RouterID
	}
	in.RouterIDs = map[int64]netip.Addr{}
	for _, inst := range nc.Spec.BGPInstances {
		if id, err := netip.ParseAddr(reported[inst.LocalASN]); err == nil {
			in.RouterIDs[inst.LocalASN] = id
			continue
		}
		in.RouterIDs[inst.LocalASN] = placeholderRouterID
		notes = append(notes, fmt.Sprintf("instance %d: no router ID reported yet; routes computed anyway", inst.LocalASN))
	}
	return in, notes, nil
}

func routesHeader(wide bool) []string {
	h := []string{"NODE", "INSTANCE", "PEER", "PREFIX", "SERVICES", "COMMUNITIES"}
	if wide {
		h = append(h, "LARGE-COMMUNITIES", "LOCAL-PREF")
	}
	return h
}

// routeRows lists what each peer of the node must be sent, sorted by instance, peer
// and prefix, with the Services whose address each host route is.
func routeRows(node string, d bgp.Desired, owners serviceOwners, wide bool) [][]string {
	var rows [][]string
	for _, key := range slices.SortedFunc(maps.Keys(d.Instances), bgp.InstanceKey.Compare) {
		inst := d.Instances[key]
		for _, name := range slices.Sorted(maps.Keys(inst.Peers)) {
			export := inst.Peers[name].Export
			for _, p := range slices.SortedFunc(maps.Keys(export), bgp.ComparePrefix) {
				a := export[p]
				row := []string{cell(node), key.String(), cell(name), p.String(), owners.of(p), joinOrDash(a.Communities, kbgpv1.FormatStandardCommunity)}
				if wide {
					lp := "-"
					if a.LocalPreference != nil {
						lp = strconv.FormatUint(uint64(*a.LocalPreference), 10)
					}
					row = append(row, joinOrDash(a.LargeCommunities, largeCommunity), lp)
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

// serviceOwners are the Services holding each host route's address (load-balancer,
// cluster or external IP), as namespace/name.
type serviceOwners map[netip.Prefix][]string

// maxOwners bounds the Services named in one cell.
const maxOwners = 3

func newServiceOwners(svcs []corev1.Service) serviceOwners {
	out := serviceOwners{}
	for i := range svcs {
		svc := &svcs[i]
		ips := slices.Concat(svc.Spec.ClusterIPs, svc.Spec.ExternalIPs)
		for _, ing := range svc.Status.LoadBalancer.Ingress {
			ips = append(ips, ing.IP)
		}
		for _, ip := range ips {
			if a, err := netip.ParseAddr(ip); err == nil {
				a = a.Unmap()
				p := netip.PrefixFrom(a, a.BitLen())
				out[p] = append(out[p], svc.Namespace+"/"+svc.Name)
			}
		}
	}
	for p, names := range out {
		out[p] = slices.Compact(slices.Sorted(slices.Values(names)))
	}
	return out
}

// of names the Services of a prefix; "-" for one that is no Service's (a pod CIDR).
func (o serviceOwners) of(p netip.Prefix) string {
	names := o[p]
	switch {
	case len(names) == 0:
		return "-"
	case len(names) > maxOwners:
		return cell(strings.Join(names[:maxOwners], ",")) + fmt.Sprintf(",+%d", len(names)-maxOwners)
	}
	return cell(strings.Join(names, ","))
}

// largeCommunity writes a large community as the API accepts it.
func largeCommunity(c bgp.LargeCommunity) string {
	return string(kbgpv1.LargeCommunityOf([3]uint32{c.GlobalAdmin, c.LocalData1, c.LocalData2}))
}

// readCluster is what every node's routes share, the reserved addresses included, as
// the agents know them. A caller who may not list Nodes or ServiceCIDRs gets the
// routes computed without that check, and a note saying so.
func readCluster(ctx context.Context, r client.Reader) (nodeinput.Cluster, []string, error) {
	cluster, err := nodeinput.ReadCluster(ctx, nodeinput.Sources{Reader: r})
	if err != nil {
		return cluster, nil, err
	}
	cluster.Reserved, err = nodeinput.ReadReserved(ctx, r)
	if apierrors.IsForbidden(err) {
		return cluster, []string{reservedNotReadable}, nil
	}
	return cluster, nil, err
}

// reservedNotReadable is the note of a computation without the cluster's reserved
// addresses.
const reservedNotReadable = "Nodes or ServiceCIDRs not readable: addresses the cluster reserves (other Nodes', pod CIDRs, Service CIDRs) are not refused in this computation, as the agents refuse them"
