package operator

import (
	"cmp"
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/lbipam"
	"kbgp.io/kbgp/internal/metrics"
)

// poolStatusDelay is how long a pool's status may lag its allocations: at 100
// Services/s, a write per allocation would double the operator's writes.
const poolStatusDelay = time.Second

// Service event reasons of the address allocator. MetalLB users know these names.
const (
	EventIPAllocated      = "IPAllocated"
	EventAllocationFailed = "AllocationFailed"
)

// LoadBalancerIPAM gives LoadBalancer Services addresses from the LoadBalancerIPPools.
// It runs on the leader only, one Service at a time, so the allocator needs no more
// than one lock (shared with the pool status controller). It keeps nothing the API
// does not hold: its first reconcile rebuilds the allocator from every Service's
// status, read from the API server itself rather than the cache, so a new leader
// cannot miss an address its predecessor wrote just before it stopped; so does every
// reconcile that finds the pools changed.
type LoadBalancerIPAM struct {
	Client client.Client
	// APIReader reads around the cache for the rebuild.
	APIReader client.Reader
	Recorder  record.EventRecorder
	// Workers is how many Services' status writes overlap (0: DefaultLoadBalancerIPAMWorkers).
	Workers int

	mu sync.Mutex
	// poolQueue is the pool status controller's queue, set when it starts: pools whose
	// status may have changed are added to it after poolStatusDelay, and the queue
	// merges the adds that wait, which coalesces a burst of Services into one status
	// write per pool per delay.
	poolQueue workqueue.TypedDelayingInterface[reconcile.Request]
	// serviceQueue is this controller's own queue: an address given back is offered
	// to the Services waiting for one.
	serviceQueue workqueue.TypedInterface[reconcile.Request]
	// alloc is nil until the first reconcile.
	alloc *lbipam.Allocator
	// pools is the fingerprint of the pools the allocator was built with (names, UIDs
	// and generations: a status write is no change), so a Service event rebuilds it
	// only when they changed.
	pools string
	// havePools is false while no pool exists: the allocator then leaves every
	// Service alone, so a cluster whose addresses come from elsewhere (or by hand) is
	// not touched until its first pool.
	havePools bool
	// problems are the last AllocationFailed message per waiting Service: one event
	// per change, not one per re-assignment.
	problems map[string]string
	// writing are the addresses each status write in flight puts into its Service's
	// status: a rebuild meanwhile counts them as taken, since the write may land after
	// the rebuild's list.
	writing map[string][]netip.Addr
}

// ReconcileService assigns one Service's addresses and writes them to its status.
// The allocation is decided under the lock; the API write happens outside it, so that
// the workers' writes overlap: one at a time, a write's round trip bounded the rate to
// about 25 Services/s (bench B8). Two workers never hold one Service. An address a
// Service is moved off stays taken in the allocator until the write that removes it
// from the Service's status has succeeded, and a rebuild counts the addresses being
// written, so no write, however late, puts an address into a second Service's status.
func (r *LoadBalancerIPAM) ReconcileService(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	write, err := r.assign(ctx, req)
	if err != nil || write == nil {
		return reconcile.Result{}, err
	}
	shown, err := write(ctx)
	r.written(req.Namespace+"/"+req.Name, shown, err)
	return reconcile.Result{}, err
}

// statusWrite makes a Service's status true and returns the load-balancer addresses
// the API server's copy shows afterwards.
type statusWrite func(context.Context) ([]netip.Addr, error)

// assign updates the allocator for one Service and returns the status write that
// follows, if any.
func (r *LoadBalancerIPAM) assign(ctx context.Context, req reconcile.Request) (statusWrite, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.sync(ctx); err != nil {
		return nil, err
	}
	key := req.Namespace + "/" + req.Name
	svc := &corev1.Service{}
	if err := r.Client.Get(ctx, req.NamespacedName, svc); err != nil {
		if apierrors.IsNotFound(err) {
			r.release(key)
			return nil, nil
		}
		return nil, fmt.Errorf("get Service %s: %w", key, err)
	}
	if !lbipam.Eligible(svc) {
		held := r.alloc.Holds(key)
		if len(held) > 0 || r.problems[key] != "" {
			r.notifyPools()
		}
		r.alloc.Withdraw(key)
		delete(r.problems, key)
		return func(ctx context.Context) ([]netip.Addr, error) { return r.clearIfNotLoadBalancer(ctx, svc, held) }, nil
	}
	if !r.havePools {
		return nil, nil
	}
	request, err := lbipam.NewRequest(svc)
	if err != nil {
		// Unreadable input loses nothing: the Service keeps what it holds.
		r.warnOnce(svc, key, err.Error())
		return nil, nil
	}
	before := r.alloc.Holds(key)
	res := r.alloc.Assign(request)
	if !slices.Equal(before, res.Addresses) || res.Pending() {
		r.notifyPools()
	}
	for _, evicted := range res.Evicted {
		r.queueService(evicted)
	}
	if res.Pending() {
		r.warnOnce(svc, key, strings.Join(res.Problems, "; "))
	} else {
		delete(r.problems, key)
	}
	r.writing[key] = res.Addresses
	confirm := r.alloc.Showing(key)
	return func(ctx context.Context) ([]netip.Addr, error) {
		return r.writeIngress(ctx, svc, res.Addresses, confirm)
	}, nil
}

// written tells the allocator what a Service's status shows after its write: the
// addresses it no longer shows are free for the Services waiting for one. After a
// failed write the status is unknown, and they stay taken until the next write.
func (r *LoadBalancerIPAM) written(key string, shown []netip.Addr, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.writing, key)
	if err == nil {
		r.freed(r.alloc.Written(key, shown))
	}
}

// sync rebuilds the allocator whenever the pools changed (and at the first
// reconcile): from every Service's status, read from the API server itself, oldest
// Service first, so that of two Services holding one address (which only a bug could
// cause) the older keeps it. Rebuilding on a pool change, rather than only handing the
// allocator the new pools, is what lets a first pool adopt the addresses Services
// already hold (from another allocator, or by hand): the pool event queues every
// Service in no particular order, and without the rebuild a Service served early could
// take an address a later one holds. Pools change rarely; a Service event costs no list.
func (r *LoadBalancerIPAM) sync(ctx context.Context) error {
	var list kbgpv1.LoadBalancerIPPoolList
	if err := r.Client.List(ctx, &list, client.UnsafeDisableDeepCopy); err != nil {
		return fmt.Errorf("list LoadBalancerIPPools: %w", err)
	}
	// The cache lists in no fixed order: unsorted, one set of pools had several
	// fingerprints and nearly every reconcile rebuilt (a list of every Service each).
	slices.SortFunc(list.Items, func(a, b kbgpv1.LoadBalancerIPPool) int { return strings.Compare(a.Name, b.Name) })
	var fp strings.Builder
	for _, p := range list.Items {
		fmt.Fprintf(&fp, "%s@%s/%d,", p.Name, p.UID, p.Generation)
	}
	if r.alloc != nil && fp.String() == r.pools {
		return nil
	}
	pools := make([]lbipam.Pool, 0, len(list.Items))
	for i := range list.Items {
		p, _ := lbipam.NewPool(&list.Items[i]) // the pool status reports the error
		pools = append(pools, p)
	}
	alloc := lbipam.New()
	alloc.SetPools(pools)
	var svcs corev1.ServiceList
	if err := r.APIReader.List(ctx, &svcs); err != nil {
		return fmt.Errorf("list Services to rebuild the address allocations: %w", err)
	}
	slices.SortFunc(svcs.Items, func(a, b corev1.Service) int {
		if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
			return c
		}
		return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
	})
	restored := 0
	for i := range svcs.Items {
		svc := &svcs.Items[i]
		if !lbipam.Eligible(svc) {
			continue
		}
		if req, err := lbipam.NewRequest(svc); err == nil {
			// A write in flight may yet land: its addresses count as shown, first.
			req.Current = slices.Concat(r.writing[req.Service], req.Current)
			alloc.Restore(req)
			restored += len(alloc.Holds(req.Service))
		}
	}
	log.FromContext(ctx).Info("rebuilt load-balancer address allocations from Services' status", "pools", len(pools), "addresses", restored)
	r.alloc, r.pools, r.havePools = alloc, fp.String(), len(pools) > 0
	if r.problems == nil {
		r.problems, r.writing = map[string]string{}, map[string][]netip.Addr{}
	}
	r.notifyPools()
	return nil
}

// release gives back the addresses of a Service that is gone.
func (r *LoadBalancerIPAM) release(key string) {
	if r.problems[key] != "" {
		r.notifyPools()
	}
	delete(r.problems, key)
	r.freed(r.alloc.Release(key))
}

// freed offers addresses given back to the waiting Services they can serve, and has
// the pools' counts written.
func (r *LoadBalancerIPAM) freed(addrs []netip.Addr) {
	if len(addrs) == 0 {
		return
	}
	r.notifyPools()
	for _, key := range r.alloc.WaitingFor(addrs) {
		r.queueService(key)
	}
}

// notifyPools queues the status of every pool: used counts change in the pools of the
// addresses that moved, but Exhausted can change in any pool a waiting Service asked.
// There are few pools, and the queue merges repeats.
func (r *LoadBalancerIPAM) notifyPools() {
	if r.poolQueue == nil {
		return
	}
	for _, part := range strings.Split(r.pools, ",") {
		if name, _, ok := strings.Cut(part, "@"); ok {
			r.poolQueue.AddAfter(reconcile.Request{NamespacedName: types.NamespacedName{Name: name}}, poolStatusDelay)
		}
	}
}

// queueService queues one Service ("namespace/name") for assignment.
func (r *LoadBalancerIPAM) queueService(key string) {
	if r.serviceQueue == nil {
		return
	}
	ns, name, _ := strings.Cut(key, "/")
	r.serviceQueue.Add(reconcile.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}})
}

// startServiceQueue keeps the controller's own queue, to offer freed addresses to the
// Services waiting for one.
func (r *LoadBalancerIPAM) startServiceQueue(_ context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.serviceQueue = q
	return nil
}

// warnOnce records an AllocationFailed event when the Service's problem changed.
func (r *LoadBalancerIPAM) warnOnce(svc *corev1.Service, key, msg string) {
	if r.problems[key] == msg {
		return
	}
	r.problems[key] = msg
	r.Recorder.Event(svc, corev1.EventTypeWarning, EventAllocationFailed, msg)
}

// writeIngress sets the Service's load-balancer ingress to addrs and returns what the
// API server's copy shows then. The update carries the cached resourceVersion: a
// Service changed meanwhile is reconciled again. When the cached status already shows
// addrs there is nothing to write, but a cache may lag this controller's own last
// write: if an address is to be given back on the strength of it (confirm), the API
// server's copy is read first.
func (r *LoadBalancerIPAM) writeIngress(ctx context.Context, svc *corev1.Service, addrs []netip.Addr, confirm bool) ([]netip.Addr, error) {
	if showsExactly(svc, addrs) && confirm {
		live := &corev1.Service{}
		if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(svc), live); err != nil {
			return nil, fmt.Errorf("read Service %s/%s: %w", svc.Namespace, svc.Name, err)
		}
		svc = live
	}
	if showsExactly(svc, addrs) {
		return addrs, nil
	}
	updated := svc.DeepCopy()
	updated.Status.LoadBalancer.Ingress = nil
	for _, a := range addrs {
		updated.Status.LoadBalancer.Ingress = append(updated.Status.LoadBalancer.Ingress, corev1.LoadBalancerIngress{IP: a.String()})
	}
	if err := r.Client.Status().Update(ctx, updated, client.FieldOwner(FieldManager)); err != nil {
		return nil, fmt.Errorf("write load-balancer addresses of Service %s/%s: %w", svc.Namespace, svc.Name, err)
	}
	if len(addrs) > 0 {
		r.Recorder.Eventf(svc, corev1.EventTypeNormal, EventIPAllocated, "assigned %s", joinAddrs(addrs))
	}
	return lbipam.IngressAddresses(updated), nil
}

// showsExactly reports whether the Service's status shows addrs and nothing else.
func showsExactly(svc *corev1.Service, addrs []netip.Addr) bool {
	return slices.Equal(lbipam.IngressAddresses(svc), addrs) && len(svc.Status.LoadBalancer.Ingress) == len(addrs)
}

// clearIfNotLoadBalancer removes the addresses kbgp gave a Service that is no longer of
// type LoadBalancer, and returns what its status shows then. A LoadBalancer Service of
// another class is its own controller's, and one being deleted keeps its status: what
// they show stays taken until they change it or are gone.
func (r *LoadBalancerIPAM) clearIfNotLoadBalancer(ctx context.Context, svc *corev1.Service, held []netip.Addr) ([]netip.Addr, error) {
	if svc.Spec.Type == corev1.ServiceTypeLoadBalancer || svc.DeletionTimestamp != nil || len(held) == 0 {
		return lbipam.IngressAddresses(svc), nil
	}
	kept := slices.DeleteFunc(lbipam.IngressAddresses(svc), func(a netip.Addr) bool { return slices.Contains(held, a) })
	shown, err := r.writeIngress(ctx, svc, kept, true)
	if apierrors.IsNotFound(err) {
		return nil, nil // gone: it shows nothing
	}
	return shown, err
}

func joinAddrs(addrs []netip.Addr) string {
	s := make([]string, len(addrs))
	for i, a := range addrs {
		s[i] = a.String()
	}
	return strings.Join(s, ", ")
}

// DefaultLoadBalancerIPAMWorkers is how many Services' status writes overlap by
// default; the allocation itself is one at a time and takes microseconds, so a burst
// of Services goes at workers / (one status write's round trip), as far as the client
// rate limit (--kube-api-qps) allows. With 8, a burst of 1,000 on a loaded API server
// (0.3–0.5 s a write) took 40–60 s (bench B8); 32 keeps 1,000 within a few seconds of
// the 200 requests/s limit without holding many more requests open.
const DefaultLoadBalancerIPAMWorkers = 32

// SetupServiceController registers the address allocator for LoadBalancer Services.
// Only Services that are or were of type LoadBalancer reach its queue.
func (r *LoadBalancerIPAM) SetupServiceController(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("lbipam").
		For(&corev1.Service{}, builder.WithPredicates(loadBalancerService)).
		Watches(&kbgpv1.LoadBalancerIPPool{}, handler.EnqueueRequestsFromMapFunc(loadBalancerServices(r.Client)), builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		WatchesRawSource(source.Func(r.startServiceQueue)).
		WithOptions(controller.Options{MaxConcurrentReconciles: cmp.Or(r.Workers, DefaultLoadBalancerIPAMWorkers)}).
		Complete(metrics.Instrument(reconcile.Func(r.ReconcileService)))
}

// loadBalancerService passes events of Services that are, or were before the update, of
// type LoadBalancer: the others never hold a pool address.
var loadBalancerService = predicate.Funcs{
	CreateFunc:  func(e event.CreateEvent) bool { return isLoadBalancer(e.Object) },
	DeleteFunc:  func(e event.DeleteEvent) bool { return isLoadBalancer(e.Object) },
	UpdateFunc:  func(e event.UpdateEvent) bool { return isLoadBalancer(e.ObjectOld) || isLoadBalancer(e.ObjectNew) },
	GenericFunc: func(e event.GenericEvent) bool { return isLoadBalancer(e.Object) },
}

func isLoadBalancer(o client.Object) bool {
	svc, ok := o.(*corev1.Service)
	return ok && svc.Spec.Type == corev1.ServiceTypeLoadBalancer
}

// loadBalancerServices maps a pool event to every LoadBalancer Service: a new, changed
// or deleted pool can give, move or take any of their addresses. Pool events are rare.
func loadBalancerServices(c client.Reader) handler.MapFunc {
	return func(ctx context.Context, _ client.Object) []reconcile.Request {
		var list corev1.ServiceList
		if err := c.List(ctx, &list, client.UnsafeDisableDeepCopy); err != nil {
			log.FromContext(ctx).Error(err, "list Services for a pool change")
			return nil
		}
		var out []reconcile.Request
		for i := range list.Items {
			if list.Items[i].Spec.Type == corev1.ServiceTypeLoadBalancer {
				out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&list.Items[i])})
			}
		}
		return out
	}
}
