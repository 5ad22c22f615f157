package nodebgp

import (
	"context"
	"sync"
	"sync/atomic"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
)

// coverage tells which queued requests a full build has already covered, so that
// they are dropped instead of redone. An agent starting on a node with 100,000
// Services has 100,000 Service requests and a whole-node request queued when its
// caches sync: the first of them builds everything (reconcileService does when
// nothing was built yet), and every other one would then read its objects and diff
// them again, the whole-node one rebuilding all 100,000 exports a second time, while
// the node's sessions send their first table.
//
// Every event's request is numbered as its handler makes it (handler). The informer
// stored the object before it called the handler, so a full build that starts after
// the number reads it. A request whose latest event is numbered no later than the
// start of the last full build that succeeded is covered. The events of a watch's
// initial list are numbered 0: the controller starts its worker only once every
// cache has synced, so every full build reads them, however late their handlers run.
// A full build starts as its request is taken (take), so that a change numbered after
// that is not covered by it, not even for its own request, which may carry the
// build's requeue (a router ID's backoff). Requests made by anything else (a requeue
// after an error or a wait, a held Service's turn) carry no number and always run.
type coverage struct {
	seq atomic.Uint64
	mu  sync.Mutex
	// latest is the number of each queued request's latest event.
	latest map[request]uint64
	// built is where the last successful full build started, once there is one.
	built    uint64
	anyBuilt bool
}

func newCoverage() *coverage { return &coverage{latest: map[request]uint64{}} }

// event numbers an event that makes req (initial: of a watch's initial list) and
// reports whether req must be queued: not when an earlier event's req is still to be
// taken. That one is queued, or the worker has got it and is about to take it; then
// adding req again would run it a second time (the queue re-adds what is added while
// it is processed) for an event the first run reads anyway. One Service's
// EndpointSlice and the Service itself make the same request, so at start-up this is
// common.
func (c *coverage) event(req request, initial bool) (queue bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, pending := c.latest[req]
	if !initial {
		c.latest[req] = c.seq.Add(1)
	} else if !pending {
		c.latest[req] = 0
	}
	return !pending
}

// take takes req off the books as its reconcile begins. It reports whether a full
// build since req's latest event makes the reconcile needless and, if not, where a
// full build the reconcile makes starts: every event numbered so far is before it.
// An event from now on numbers req again, and the queue runs req again.
func (c *coverage) take(req request) (covered bool, start uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok := c.latest[req]
	delete(c.latest, req)
	return ok && c.anyBuilt && n <= c.built, c.seq.Load()
}

// done records that a full build whose request was taken at start succeeded.
func (c *coverage) done(start uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.built, c.anyBuilt = max(c.built, start), true
}

// handler enqueues the requests toRequests maps an event's object to (an update's old
// and new object both, as handler.EnqueueRequestsFromMapFunc does), each numbered.
func (c *coverage) handler(toRequests func(client.Object) []request) handler.TypedEventHandler[client.Object, request] {
	add := func(q workqueue.TypedRateLimitingInterface[request], initial bool, objs ...client.Object) {
		for _, o := range objs {
			for _, req := range toRequests(o) {
				if c.event(req, initial) {
					q.Add(req)
				}
			}
		}
	}
	return handler.TypedFuncs[client.Object, request]{
		CreateFunc: func(_ context.Context, e event.TypedCreateEvent[client.Object], q workqueue.TypedRateLimitingInterface[request]) {
			add(q, e.IsInInitialList, e.Object)
		},
		UpdateFunc: func(_ context.Context, e event.TypedUpdateEvent[client.Object], q workqueue.TypedRateLimitingInterface[request]) {
			add(q, false, e.ObjectOld, e.ObjectNew)
		},
		DeleteFunc: func(_ context.Context, e event.TypedDeleteEvent[client.Object], q workqueue.TypedRateLimitingInterface[request]) {
			add(q, false, e.Object)
		},
		GenericFunc: func(_ context.Context, e event.TypedGenericEvent[client.Object], q workqueue.TypedRateLimitingInterface[request]) {
			add(q, false, e.Object)
		},
	}
}
