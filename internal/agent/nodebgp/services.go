package nodebgp

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/exports"
	"kbgp.io/kbgp/internal/intent"
)

// endpointSliceServiceIndex indexes EndpointSlices by their Service (namespace/name),
// so a Service event reads its own slices, not every slice of its namespace.
const endpointSliceServiceIndex = "kbgp.io/service"

func indexEndpointSliceService(o client.Object) []string {
	if svc, ok := intent.EndpointSliceService(o.(*discoveryv1.EndpointSlice)); ok {
		return []string{svc.String()}
	}
	return nil
}

// reconcileService is the hot path of a Service or EndpointSlice event: that one
// Service's prefixes are recomputed and only the difference reaches the speakers.
// Without an index from a full build (none yet, or the last incremental apply failed)
// it falls back to the full reconcile, which also covers this Service.
func (r *Reconciler) reconcileService(ctx context.Context, key types.NamespacedName) (reconcile.Result, error) {
	if r.exports == nil || r.exportsStale {
		return r.reconcileAll(ctx)
	}
	return r.setServices(ctx, []types.NamespacedName{key})
}

// setServices recomputes the Services' prefixes from the cache and applies the
// difference. A Service that cannot be read leaves the index ahead of the speakers:
// the retry rebuilds everything.
func (r *Reconciler) setServices(ctx context.Context, keys []types.NamespacedName) (reconcile.Result, error) {
	r.logger.Debug("setting Services", "count", len(keys))
	changes := bgp.ExportChanges{}
	for _, key := range keys {
		svc := &corev1.Service{}
		if err := r.client.Get(ctx, key, svc); err != nil {
			if !apierrors.IsNotFound(err) {
				r.exportsStale = true
				return reconcile.Result{}, fmt.Errorf("get Service %s: %w", key, err)
			}
			svc = nil
		}
		slices := &discoveryv1.EndpointSliceList{}
		if err := r.client.List(ctx, slices, client.InNamespace(key.Namespace),
			client.MatchingFields{endpointSliceServiceIndex: key.String()}); err != nil {
			r.exportsStale = true
			return reconcile.Result{}, fmt.Errorf("list EndpointSlices of %s: %w", key, err)
		}
		changes.Append(r.exports.SetService(key, svc, slices.Items))
	}
	r.requeueHeld(r.exports)
	// These Services' refusals, and those of the Services claiming an address whose
	// owner they changed.
	for _, k := range r.exports.TouchedRefusals() {
		r.status.SetRefusedOf(k.String(), r.exports.RefusedOf(k))
	}
	if len(changes) == 0 {
		return reconcile.Result{}, nil
	}
	defer r.restart.Trigger()
	defer r.memory.after(changedRoutes(changes))
	if err := r.speakers.ApplyExports(ctx, changes); err != nil {
		// The index is ahead of the speakers now; the retry rebuilds everything.
		r.exportsStale = true
		return reconcile.Result{}, fmt.Errorf("apply the exports of Services %v: %w", keys, err)
	}
	r.status.Trigger()
	return reconcile.Result{}, nil
}

// requeueHeld sets each Service the index held back (exports.Index.Held) again once its
// interval has passed; the latest count then wins. A Service event in between sets it
// sooner, and is held back again if its interval has not passed.
func (r *Reconciler) requeueHeld(x *exports.Index) {
	q := r.queue.Load()
	for key, wait := range x.Held() {
		if q != nil {
			(*q).AddAfter(request{kind: heldService, service: key}, wait)
		}
	}
}
