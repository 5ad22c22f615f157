package kubectlbgp

import (
	"context"
	"fmt"
	"strings"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/contract"
)

// nodeGVK is the kind of a Node, needed to read one as metadata only.
var nodeGVK = corev1.SchemeGroupVersion.WithKind("Node")

// nodeConfigs returns every BGPNodeConfig, or only the one of node when node is set.
// A missing node config is an error that says the likely reasons, since "not found"
// alone sends the reader looking in the wrong place.
func nodeConfigs(ctx context.Context, r client.Reader, node string) ([]kbgpv1.BGPNodeConfig, error) {
	if node == "" {
		var list kbgpv1.BGPNodeConfigList
		if err := r.List(ctx, &list); err != nil {
			return nil, fmt.Errorf("list BGPNodeConfigs: %w", err)
		}
		return list.Items, nil
	}
	var nc kbgpv1.BGPNodeConfig
	if err := r.Get(ctx, types.NamespacedName{Name: node}, &nc); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("no BGPNodeConfig for node %q: no BGPClusterConfig selects it, or the operator has not rendered it yet (see kubectl bgp explain %s)", node, node)
		}
		return nil, fmt.Errorf("get BGPNodeConfig %s: %w", node, err)
	}
	return []kbgpv1.BGPNodeConfig{nc}, nil
}

// fetchExplainInput reads what explain needs. The Node is read as metadata only: its
// labels are all selection looks at, and metadata is what the operator watches too.
func fetchExplainInput(ctx context.Context, r client.Reader, node string) (explainInput, error) {
	in := explainInput{NodeName: node}
	meta := &metav1.PartialObjectMetadata{}
	meta.SetGroupVersionKind(nodeGVK)
	if err := r.Get(ctx, types.NamespacedName{Name: node}, meta); err != nil {
		return in, fmt.Errorf("get node %s: %w", node, err)
	}
	in.NodeLabels = meta.Labels

	var ccs kbgpv1.BGPClusterConfigList
	var ovs kbgpv1.BGPNodeConfigOverrideList
	var pcs kbgpv1.BGPPeerConfigList
	var ads kbgpv1.BGPAdvertisementList
	for _, l := range []struct {
		kind string
		list client.ObjectList
	}{{"BGPClusterConfigs", &ccs}, {"BGPNodeConfigOverrides", &ovs}, {"BGPPeerConfigs", &pcs}, {"BGPAdvertisements", &ads}} {
		if err := r.List(ctx, l.list); err != nil {
			return in, fmt.Errorf("list %s: %w", l.kind, err)
		}
	}
	in.ClusterConfigs, in.Overrides, in.PeerConfigs, in.Advertisements = ccs.Items, ovs.Items, pcs.Items, ads.Items

	var nc kbgpv1.BGPNodeConfig
	switch err := r.Get(ctx, types.NamespacedName{Name: node}, &nc); {
	case err == nil:
		in.NodeConfig = &nc
	case !apierrors.IsNotFound(err):
		return in, fmt.Errorf("get BGPNodeConfig %s: %w", node, err)
	}
	return in, nil
}

// agentLeases returns, by node name, when each agent last renewed its liveness Lease.
// Leases that are not agents' are ignored.
func agentLeases(ctx context.Context, r client.Reader, namespace string) (map[string]*metav1.Time, error) {
	list := &coordinationv1.LeaseList{}
	if err := r.List(ctx, list, client.InNamespace(namespace)); err != nil {
		return nil, fmt.Errorf("list agent Leases in %s: %w", namespace, err)
	}
	out := map[string]*metav1.Time{}
	for _, l := range list.Items {
		holder := l.Spec.HolderIdentity
		if holder == nil || l.Name != contract.AgentLeaseName(*holder) || l.Spec.RenewTime == nil {
			continue
		}
		out[*holder] = &metav1.Time{Time: l.Spec.RenewTime.Time}
	}
	return out, nil
}

// runExplainService gathers every node's agent input as kubectl bgp routes does and
// explains the Service named "namespace/name" on each.
func runExplainService(ctx context.Context, r client.Reader, name, agentNamespace string, ask func(node string) (agentGet, error)) ([]string, error) {
	ns, n, ok := strings.Cut(name, "/")
	if !ok || ns == "" || n == "" {
		return nil, fmt.Errorf("service %q: want NAMESPACE/NAME", name)
	}
	key := types.NamespacedName{Namespace: ns, Name: n}
	ncs, err := nodeConfigs(ctx, r, "")
	if err != nil {
		return nil, err
	}
	cluster, clusterNotes, err := readCluster(ctx, r)
	if err != nil {
		return nil, err
	}
	var svc *corev1.Service
	for i := range cluster.Services {
		if cluster.Services[i].Namespace == ns && cluster.Services[i].Name == n {
			svc = &cluster.Services[i]
		}
	}
	nodes := make([]serviceNode, 0, len(ncs))
	for i := range ncs {
		in, notes, err := nodeRoutesInput(ctx, r, &ncs[i], cluster, agentNamespace)
		if err != nil {
			return nil, err
		}
		sn := serviceNode{name: ncs[i].Name, in: in, notes: append(notes, clusterNotes...)}
		if ask != nil && svc != nil {
			view := agentView{}
			if get, err := ask(ncs[i].Name); err != nil {
				view.err = err
			} else {
				view = askAgent(ctx, get, allAddrs(serviceAddrs(svc)))
			}
			sn.agent = &view
		}
		nodes = append(nodes, sn)
	}
	return explainService(key, svc, nodes), nil
}
