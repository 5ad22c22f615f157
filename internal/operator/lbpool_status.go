package operator

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/lbipam"
	"kbgp.io/kbgp/internal/metrics"
)

// ReconcilePool writes one pool's status and metrics from the allocator: used and total
// addresses, Exhausted, Overlapping, and Ready (false while a block is invalid).
func (r *LoadBalancerIPAM) ReconcilePool(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var pool kbgpv1.LoadBalancerIPPool
	if err := r.Client.Get(ctx, req.NamespacedName, &pool); err != nil {
		if apierrors.IsNotFound(err) {
			metrics.DeletePool(req.Name)
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, fmt.Errorf("get LoadBalancerIPPool %s: %w", req.Name, err)
	}
	facts, err := r.poolFacts(ctx, &pool)
	if err != nil {
		return reconcile.Result{}, err
	}
	metrics.SetPoolAddresses(pool.Name, "ipv4", facts.Stats.IPv4.Total, facts.Stats.IPv4.Used)
	metrics.SetPoolAddresses(pool.Name, "ipv6", facts.Stats.IPv6.Total, facts.Stats.IPv6.Used)
	status := lbipam.PoolStatus(pool.Status, pool.Generation, facts, metav1.Now())
	if equality.Semantic.DeepEqual(status, pool.Status) {
		return reconcile.Result{}, nil
	}
	updated := pool.DeepCopy()
	updated.Status = status
	if err := r.Client.Status().Update(ctx, updated, client.FieldOwner(FieldManager)); err != nil {
		return reconcile.Result{}, fmt.Errorf("update status of LoadBalancerIPPool %s: %w", pool.Name, err)
	}
	return reconcile.Result{}, nil
}

// poolFacts reads the allocator's counts for the pool and checks its blocks and
// overlaps against the other pools of the cache.
func (r *LoadBalancerIPAM) poolFacts(ctx context.Context, pool *kbgpv1.LoadBalancerIPPool) (lbipam.PoolFacts, error) {
	r.mu.Lock()
	err := r.sync(ctx)
	var stats lbipam.PoolStats
	if err == nil {
		stats = r.alloc.Stats(pool.Name)
	}
	r.mu.Unlock()
	if err != nil {
		return lbipam.PoolFacts{}, err
	}
	var list kbgpv1.LoadBalancerIPPoolList
	if err := r.Client.List(ctx, &list, client.UnsafeDisableDeepCopy); err != nil {
		return lbipam.PoolFacts{}, fmt.Errorf("list LoadBalancerIPPools: %w", err)
	}
	pools := make([]lbipam.Pool, 0, len(list.Items))
	for i := range list.Items {
		p, _ := lbipam.NewPool(&list.Items[i])
		pools = append(pools, p)
	}
	_, invalid := lbipam.NewPool(pool)
	return lbipam.PoolFacts{Stats: stats, Invalid: invalid, OverlapsWith: lbipam.Overlaps(pools)[pool.Name]}, nil
}

// startPoolQueue hands the pool status controller's queue to the Service side, and
// queues every pool once, now that there is a queue to put them in.
func (r *LoadBalancerIPAM) startPoolQueue(_ context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.poolQueue = q
	r.notifyPools()
	return nil
}

// SetupPoolController registers the status of the pools the allocator hands addresses
// out from.
func (r *LoadBalancerIPAM) SetupPoolController(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("lbpoolstatus").
		For(&kbgpv1.LoadBalancerIPPool{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		WatchesRawSource(source.Func(r.startPoolQueue)).
		Complete(metrics.Instrument(reconcile.Func(r.ReconcilePool)))
}
