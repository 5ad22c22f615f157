package operator

import (
	"context"
	"errors"
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
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/lbipam"
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
}

// ReconcileService assigns one Service's addresses and writes them to its status.
// The allocation is decided under the lock; the API write happens outside it, so that
// the workers' writes overlap: one at a time, a write's round trip bounded the rate to
// about 25 Services/s (bench B8). Two workers never hold one Service, and an address
// is released in the allocator before the write that removes it from its old Service,
// so for the length of that write two Services' status may show it: a new leader's
// rebuild keeps it with the older one.
func (r *LoadBalancerIPAM) ReconcileService(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	write, err := r.assign(ctx, req)
	if err != nil || write == nil {
		return reconcile.Result{}, err
	}
	return reconcile.Result{}, write(ctx)
}

// assign updates the allocator for one Service and returns the status write that
// follows, if any.
func (r *LoadBalancerIPAM) assign(ctx context.Context, req reconcile.Request) (func(context.Context) error, error) {
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
		r.release(key)
		return func(ctx context.Context) error { return r.clearIfNotLoadBalancer(ctx, svc, held) }, nil
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
	if slices.ContainsFunc(before, func(a netip.Addr) bool { return !slices.Contains(res.Addresses, a) }) {
		r.retryWaiting(key)
	}
	if res.Pending() {
		r.warnOnce(svc, key, strings.Join(res.Problems, "; "))
	} else {
		delete(r.problems, key)
	}
	return func(ctx context.Context) error { return r.writeIngress(ctx, svc, res.Addresses) }, nil
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
			alloc.Restore(req)
			restored += len(alloc.Holds(req.Service))
		}
	}
	log.FromContext(ctx).Info("rebuilt load-balancer address allocations from Services' status", "pools", len(pools), "addresses", restored)
	r.alloc, r.pools, r.havePools = alloc, fp.String(), len(pools) > 0
	if r.problems == nil {
		r.problems = map[string]string{}
	}
	r.notifyPools()
	return nil
}

// release gives back a Service's addresses.
func (r *LoadBalancerIPAM) release(key string) {
	held := len(r.alloc.Holds(key)) > 0
	if held || r.problems[key] != "" {
		r.notifyPools()
	}
	r.alloc.Release(key)
	delete(r.problems, key)
	if held {
		r.retryWaiting(key)
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

// retryWaiting queues the Services waiting for an address, but for the one that gave
// its own back.
func (r *LoadBalancerIPAM) retryWaiting(except string) {
	if r.serviceQueue == nil {
		return
	}
	for key := range r.problems {
		if key == except {
			continue
		}
		ns, name, _ := strings.Cut(key, "/")
		r.serviceQueue.Add(reconcile.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}})
	}
}

// startServiceQueue keeps the controller's own queue for retryWaiting.
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

// writeIngress sets the Service's load-balancer ingress to addrs. The update carries
// the cached resourceVersion: a Service changed meanwhile is reconciled again.
func (r *LoadBalancerIPAM) writeIngress(ctx context.Context, svc *corev1.Service, addrs []netip.Addr) error {
	if slices.Equal(lbipam.IngressAddresses(svc), addrs) && len(svc.Status.LoadBalancer.Ingress) == len(addrs) {
		return nil
	}
	updated := svc.DeepCopy()
	updated.Status.LoadBalancer.Ingress = nil
	for _, a := range addrs {
		updated.Status.LoadBalancer.Ingress = append(updated.Status.LoadBalancer.Ingress, corev1.LoadBalancerIngress{IP: a.String()})
	}
	if err := r.Client.Status().Update(ctx, updated, client.FieldOwner(FieldManager)); err != nil {
		return fmt.Errorf("write load-balancer addresses of Service %s/%s: %w", svc.Namespace, svc.Name, err)
	}
	if len(addrs) > 0 {
		r.Recorder.Eventf(svc, corev1.EventTypeNormal, EventIPAllocated, "assigned %s", joinAddrs(addrs))
	}
	return nil
}

// clearIfNotLoadBalancer removes the addresses kbgp gave a Service that is no longer of
// type LoadBalancer. A LoadBalancer Service of another class is its own controller's.
func (r *LoadBalancerIPAM) clearIfNotLoadBalancer(ctx context.Context, svc *corev1.Service, held []netip.Addr) error {
	if svc.Spec.Type == corev1.ServiceTypeLoadBalancer || svc.DeletionTimestamp != nil || len(held) == 0 {
		return nil
	}
	kept := slices.DeleteFunc(lbipam.IngressAddresses(svc), func(a netip.Addr) bool { return slices.Contains(held, a) })
	err := r.writeIngress(ctx, svc, kept)
	if apierrors.IsNotFound(err) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

func joinAddrs(addrs []netip.Addr) string {
	s := make([]string, len(addrs))
	for i, a := range addrs {
		s[i] = a.String()
	}
	return strings.Join(s, ", ")
}
