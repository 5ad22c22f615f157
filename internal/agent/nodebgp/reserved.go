package nodebgp

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"kbgp.io/kbgp/internal/intent"
	"kbgp.io/kbgp/internal/nodeinput"
)

// reservationsChanged passes the Node events that change what the Node reserves: its
// addresses and pod CIDRs. The kubelet's status writes (every few minutes per Node,
// which every agent receives) pass none of these and cost nothing more.
var reservationsChanged = predicate.Funcs{
	UpdateFunc: func(e event.UpdateEvent) bool {
		o, okO := e.ObjectOld.(*corev1.Node)
		n, okN := e.ObjectNew.(*corev1.Node)
		return !okO || !okN || !slices.Equal(o.Status.Addresses, n.Status.Addresses) ||
			!slices.Equal(o.Spec.PodCIDRs, n.Spec.PodCIDRs) || o.Spec.PodCIDR != n.Spec.PodCIDR
	},
}

// serviceCIDRWait is how long the agent's first full build waits for the ServiceCIDRs'
// first list, which runs beside the manager's caches and is usually done before them.
// An API server that answers lists but not discovery gets a build without them after
// that; they are reserved as the list arrives.
const serviceCIDRWait = 10 * time.Second

// readReserved is the cluster's reserved addresses as the caches know them: every
// Node's addresses and pod CIDRs, and every ServiceCIDR's ranges once the watch has
// listed them, which the first full build waits for (serviceCIDRWait). A full
// reconcile reads them all (O(Nodes), beside its O(Services)), so that it never
// announces what an event not yet handled would refuse.
func (r *Reconciler) readReserved(ctx context.Context) (*intent.Reserved, error) {
	if !r.cidrsAwaited {
		r.cidrsAwaited = true
		if !r.serviceCIDRs.listed(ctx, serviceCIDRWait) && ctx.Err() == nil {
			r.logger.Info("building without the ServiceCIDRs: their watch has not listed them yet; their ranges are reserved when it does",
				"waited", serviceCIDRWait.String())
		}
	}
	nodes := &corev1.NodeList{}
	if err := r.client.List(ctx, nodes, client.UnsafeDisableDeepCopy); err != nil {
		return nil, fmt.Errorf("list Nodes: %w", err)
	}
	return nodeinput.Reserved(nodes.Items, r.serviceCIDRs.all()), nil
}

// reconcileReserved takes in a change of what one Node reserves (or of the
// ServiceCIDRs, all at once: a cluster has a handful) and sets again the Services
// claiming an address in what changed (O(change): a Node's address costs a lookup
// each, see exports.Index.ClaimantsIn), or, with aggregation, in the aggregates
// around it (a scan of the claimed addresses).
func (r *Reconciler) reconcileReserved(ctx context.Context, req request) (reconcile.Result, error) {
	var changed []netip.Prefix
	if req.kind == reservedNode {
		owner := intent.ReservedOwner{Kind: nodeinput.NodeOwner, Name: req.node}
		node := &corev1.Node{}
		switch err := r.client.Get(ctx, types.NamespacedName{Name: req.node}, node); {
		case err == nil:
			changed = r.reserved.Set(owner, intent.NodeReservations(node))
		case apierrors.IsNotFound(err):
			changed = r.reserved.Set(owner, nil)
		default:
			return reconcile.Result{}, fmt.Errorf("get Node %s: %w", req.node, err)
		}
	} else {
		all := r.serviceCIDRs.all()
		for _, name := range r.reserved.Owners(nodeinput.ServiceCIDROwner) {
			if _, ok := all[name]; !ok {
				changed = append(changed, r.reserved.Set(intent.ReservedOwner{Kind: nodeinput.ServiceCIDROwner, Name: name}, nil)...)
			}
		}
		for name, cidrs := range all {
			changed = append(changed, r.reserved.Set(intent.ReservedOwner{Kind: nodeinput.ServiceCIDROwner, Name: name}, intent.ServiceCIDRReservations(cidrs))...)
		}
	}
	switch {
	case len(changed) == 0 || r.exports == nil:
		// Nothing announced yet: the first full reconcile reads every reservation.
		return reconcile.Result{}, nil
	case r.exportsStale:
		return r.reconcileAll(ctx)
	}
	return r.setServices(ctx, r.exports.ClaimantsIn(r.aggregation.Widen(changed)))
}
