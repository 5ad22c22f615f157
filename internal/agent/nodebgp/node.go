package nodebgp

import (
	"context"
	"maps"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"kbgp.io/kbgp/internal/intent"
)

// nodeCacheTTL is how long a fetched Node is reused (5 minutes, docs/design/README.md) when no
// watched change (nodeMatters) asks for a fresh read.
const nodeCacheTTL = 5 * time.Minute

// nodeGetter reads the agent's own Node straight from the API server and keeps it for
// nodeCacheTTL. Only the reconciler goroutine uses it.
type nodeGetter struct {
	reader    client.Reader
	name      string
	node      *corev1.Node
	fetchedAt time.Time
}

// get returns the Node: the cached one while it is fresh, unless fresh is asked for.
// nil with no error means the Node does not exist. When the API server fails, the
// last Node read is returned with the error, so that an outage changes nothing.
func (g *nodeGetter) get(ctx context.Context, fresh bool) (*corev1.Node, error) {
	if !fresh && g.node != nil && time.Since(g.fetchedAt) < nodeCacheTTL {
		return g.node, nil
	}
	n := &corev1.Node{}
	err := g.reader.Get(ctx, types.NamespacedName{Name: g.name}, n)
	switch {
	case err == nil:
		g.node, g.fetchedAt = n, time.Now()
		return n, nil
	case apierrors.IsNotFound(err):
		g.node = nil
		return nil, nil
	default:
		return g.node, err
	}
}

// nodeMatters passes the Node updates that change what the agent announces or how:
// cordon and uncordon (graceful shutdown), the NetworkUnavailable condition, pod CIDRs, addresses (router IDs, next
// hops, listeners), labels and annotations (router-ID templates). The kubelet's status
// heartbeats, every few seconds, pass none of these and cost nothing.
var nodeMatters = predicate.Funcs{
	UpdateFunc: func(e event.UpdateEvent) bool {
		o, okO := e.ObjectOld.(*corev1.Node)
		n, okN := e.ObjectNew.(*corev1.Node)
		if !okO || !okN {
			return true
		}
		return o.Spec.Unschedulable != n.Spec.Unschedulable || intent.NetworkUnavailable(o) != intent.NetworkUnavailable(n) ||
			!slices.Equal(o.Spec.PodCIDRs, n.Spec.PodCIDRs) || o.Spec.PodCIDR != n.Spec.PodCIDR ||
			!slices.Equal(o.Status.Addresses, n.Status.Addresses) ||
			!maps.Equal(o.Labels, n.Labels) || !maps.Equal(o.Annotations, n.Annotations)
	},
}
