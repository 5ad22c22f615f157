package operator

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// The operator caches Node metadata only (name, uid, labels): it never needs a node's
// spec or status, and 5,000 full Node objects with their status churn would cost memory
// and events for nothing.

func newNodeMetadata() *metav1.PartialObjectMetadata {
	m := &metav1.PartialObjectMetadata{}
	m.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Node"))
	return m
}

func listNodeMetadata(ctx context.Context, c client.Reader) ([]metav1.PartialObjectMetadata, error) {
	list := &metav1.PartialObjectMetadataList{}
	list.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("NodeList"))
	if err := c.List(ctx, list); err != nil {
		return nil, fmt.Errorf("list nodes: %w", err)
	}
	return list.Items, nil
}

// requestsFor are the requests of cluster-scoped objects by name.
func requestsFor(keys map[string]bool) []reconcile.Request {
	out := make([]reconcile.Request, 0, len(keys))
	for k := range keys {
		out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Name: k}})
	}
	return out
}
