package operator

import (
	"context"
	"fmt"
	"net/netip"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"kbgp.io/kbgp/internal/render"
)

// The operator caches of each Node only what it reads: identity, labels and the
// InternalIP addresses (the mesh peers with them). Spec, the rest of the status,
// annotations and managedFields go in the informer's transform: 5,000 full Node objects
// would cost memory for nothing.

// stripNode is the Nodes' cache transform.
func stripNode(obj any) (any, error) {
	n, ok := obj.(*corev1.Node)
	if !ok {
		return obj, nil
	}
	out := &corev1.Node{TypeMeta: n.TypeMeta, ObjectMeta: metav1.ObjectMeta{
		Name: n.Name, UID: n.UID, ResourceVersion: n.ResourceVersion, Labels: n.Labels,
		CreationTimestamp: n.CreationTimestamp, DeletionTimestamp: n.DeletionTimestamp,
	}}
	for _, a := range n.Status.Addresses {
		if a.Type == corev1.NodeInternalIP {
			out.Status.Addresses = append(out.Status.Addresses, a)
		}
	}
	return out, nil
}

func listNodes(ctx context.Context, c client.Reader) ([]corev1.Node, error) {
	var list corev1.NodeList
	if err := c.List(ctx, &list); err != nil {
		return nil, fmt.Errorf("list nodes: %w", err)
	}
	return list.Items, nil
}

// internalIPs are a node's InternalIP addresses in the order the node reports them.
func internalIPs(n *corev1.Node) []netip.Addr {
	var out []netip.Addr
	for _, a := range n.Status.Addresses {
		if a.Type != corev1.NodeInternalIP {
			continue
		}
		if ip, err := netip.ParseAddr(a.Address); err == nil {
			out = append(out, ip.Unmap())
		}
	}
	return out
}

func meshNode(n *corev1.Node) render.MeshNode {
	return render.MeshNode{Name: n.Name, Labels: n.Labels, InternalIPs: internalIPs(n)}
}

// sameInternalIPs reports whether two versions of a node have the same InternalIPs.
func sameInternalIPs(a, b *corev1.Node) bool {
	return slices.Equal(internalIPs(a), internalIPs(b))
}

// requestsFor are the requests of cluster-scoped objects by name.
func requestsFor(keys map[string]bool) []reconcile.Request {
	out := make([]reconcile.Request, 0, len(keys))
	for k := range keys {
		out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Name: k}})
	}
	return out
}
