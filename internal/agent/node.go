package agent

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// nodeCacheTTL is how long a fetched Node is reused (document 000: 5 minutes). The
// agent may only get its Node, not watch it, so this is also how late it notices a
// Node change it does not ask for explicitly.
const nodeCacheTTL = 5 * time.Minute

// nodeGetter reads the agent's own Node straight from the API server (get, never
// list/watch) and keeps it for nodeCacheTTL. Only the reconciler goroutine uses it.
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
