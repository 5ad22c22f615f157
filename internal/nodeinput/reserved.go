package nodeinput

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kbgp.io/kbgp/internal/intent"
)

// The kinds of the objects that reserve addresses (intent.ReservedOwner).
const (
	NodeOwner        = "Node"
	ServiceCIDROwner = "ServiceCIDR"
)

// Reserved is the cluster's reserved addresses (intent.Reserved): every Node's
// addresses and pod CIDRs, and the ranges of the ServiceCIDRs, by name.
func Reserved(nodes []corev1.Node, serviceCIDRs map[string][]string) *intent.Reserved {
	res := intent.NewReserved()
	for i := range nodes {
		res.Set(intent.ReservedOwner{Kind: NodeOwner, Name: nodes[i].Name}, intent.NodeReservations(&nodes[i]))
	}
	for name, cidrs := range serviceCIDRs {
		res.Set(intent.ReservedOwner{Kind: ServiceCIDROwner, Name: name}, intent.ServiceCIDRReservations(cidrs))
	}
	return res
}

// ReadReserved lists the Nodes and ServiceCIDRs through r, as `kubectl bgp routes`
// does (the agent watches them). An API server that serves no ServiceCIDRs (before
// Kubernetes 1.33) reserves Node addresses only, as the agent does there.
func ReadReserved(ctx context.Context, r client.Reader) (*intent.Reserved, error) {
	nodes := &corev1.NodeList{}
	if err := r.List(ctx, nodes); err != nil {
		return nil, fmt.Errorf("list Nodes: %w", err)
	}
	cidrs := map[string][]string{}
	list := &networkingv1.ServiceCIDRList{}
	switch err := r.List(ctx, list); {
	case err == nil:
		for _, s := range list.Items {
			cidrs[s.Name] = s.Spec.CIDRs
		}
	case !meta.IsNoMatchError(err) && !apierrors.IsNotFound(err):
		return nil, fmt.Errorf("list ServiceCIDRs: %w", err)
	}
	return Reserved(nodes.Items, cidrs), nil
}
