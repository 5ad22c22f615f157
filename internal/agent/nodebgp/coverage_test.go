package nodebgp

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

func TestCoverage(t *testing.T) {
	a := serviceRequest(types.NamespacedName{Namespace: "ns", Name: "a"})
	b := serviceRequest(types.NamespacedName{Namespace: "ns", Name: "b"})
	held := request{kind: heldService, service: a.service}
	// build is a successful full build made by the whole node's request.
	build := func(c *coverage) {
		_, start := c.take(nodeRequest)
		c.done(start)
	}
	type step struct {
		before func(c *coverage)
		take   request
		want   bool
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"nothing built: every event runs", []step{
			{func(c *coverage) { c.event(a, false) }, a, false},
		}},
		{"events before a full build that succeeded are covered", []step{
			{func(c *coverage) { c.event(a, false); c.event(b, false); build(c) }, a, true},
			{nil, b, true},
		}},
		{"a full build that did not succeed covers nothing", []step{
			{func(c *coverage) { c.event(a, false); c.take(nodeRequest) }, a, false},
		}},
		{"an event after the full build's request was taken runs", []step{
			{func(c *coverage) {
				_, start := c.take(nodeRequest)
				c.event(a, false)
				c.done(start)
			}, a, false},
		}},
		{"the latest event counts", []step{
			{func(c *coverage) {
				c.event(a, false)
				_, start := c.take(nodeRequest)
				c.event(a, false)
				c.done(start)
			}, a, false},
		}},
		{"a request no event made (requeue, held turn) runs", []step{
			{func(c *coverage) { c.event(a, false); build(c) }, held, false},
			{nil, b, false},
		}},
		{"taken off the books once taken: its requeue runs", []step{
			{func(c *coverage) { c.event(a, false); build(c) }, a, true},
			{nil, a, false},
		}},
		// The build's own request carries its requeue (a router ID's backoff): an event
		// of it between its take and the build must not make that requeue covered.
		{"the build's own request, changed while it builds, runs again", []step{
			{func(c *coverage) {
				_, start := c.take(nodeRequest)
				c.event(nodeRequest, false)
				c.done(start)
			}, nodeRequest, false},
		}},
		{"an event of a watch's initial list is covered by any full build", []step{
			{func(c *coverage) {
				_, start := c.take(nodeRequest)
				c.event(a, true)
				c.done(start)
			}, a, true},
		}},
		{"an event of the initial list is not covered before a full build", []step{
			{func(c *coverage) { c.event(a, true) }, a, false},
		}},
		{"an event of the initial list does not hide a later one", []step{
			{func(c *coverage) {
				c.event(a, true)
				_, start := c.take(nodeRequest)
				c.event(a, false)
				c.event(a, true)
				c.done(start)
			}, a, false},
		}},
		{"an older full build ending late does not move the mark back", []step{
			{func(c *coverage) {
				c.event(a, false)
				_, late := c.take(nodeRequest)
				c.event(b, false)
				build(c)
				c.done(late)
			}, b, true},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCoverage()
			for i, s := range tt.steps {
				if s.before != nil {
					s.before(c)
				}
				if got, _ := c.take(s.take); got != s.want {
					t.Fatalf("step %d: take(%+v) covered = %v, want %v", i, s.take, got, s.want)
				}
			}
		})
	}
}

// TestAFullBuildsWaitRequeuesTheWholeNode: a full build made by a Service's request
// that has to wait (a router ID's backoff) requeues the whole node's request too: the
// Service's own requeue would only set its Service again, and the whole node's
// request may have been dropped as covered by that build.
func TestAFullBuildsWaitRequeuesTheWholeNode(t *testing.T) {
	q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[request]())
	defer q.ShutDown()
	r := &Reconciler{}
	r.queue.Store(&q)

	if _, err := r.requeueWholeNode(reconcile.Result{}, nil); err != nil || q.Len() != 0 {
		t.Fatalf("no wait: %d requests queued (err %v), want none", q.Len(), err)
	}
	res, err := r.requeueWholeNode(reconcile.Result{RequeueAfter: 10 * time.Millisecond}, nil)
	if err != nil || res.RequeueAfter != 10*time.Millisecond {
		t.Fatalf("the result changed: %+v, %v", res, err)
	}
	got, _ := q.Get()
	if got != nodeRequest {
		t.Fatalf("queued %+v, want the whole node's request", got)
	}
}

// TestARequestMadeTwiceRunsOnce: two events make one request (a Service's and its
// EndpointSlice's, both of the initial list at start-up). The second comes after the
// worker got the request but before it took it: the run reads both, so the request is
// not queued again; had the queue got it again while processing it, the run after
// would set the Service a second time with no event to cover. A second event after
// the take queues it again, covered by the build the first run made.
func TestARequestMadeTwiceRunsOnce(t *testing.T) {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}}
	a := serviceRequest(types.NamespacedName{Namespace: "ns", Name: "a"})
	initial := event.TypedCreateEvent[client.Object]{Object: svc, IsInInitialList: true}
	for _, secondBeforeTake := range []bool{true, false} {
		c := newCoverage()
		q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[request]())
		h := c.handler(func(client.Object) []request { return []request{a} })
		h.Create(context.Background(), initial, q)
		got, _ := q.Get()
		if secondBeforeTake {
			h.Create(context.Background(), initial, q)
		}
		// The first request builds everything (nothing was built yet).
		covered, start := c.take(got)
		if covered {
			t.Fatalf("second event before the take %v: the first request was covered", secondBeforeTake)
		}
		if !secondBeforeTake {
			h.Create(context.Background(), initial, q)
		}
		c.done(start)
		q.Done(got)
		switch {
		case secondBeforeTake && q.Len() != 0:
			again, _ := q.Get()
			covered, _ := c.take(again)
			t.Errorf("an event its run reads queued the request again (covered when taken: %v)", covered)
		case !secondBeforeTake:
			if q.Len() != 1 {
				t.Fatalf("an event after the take queued %d requests, want 1", q.Len())
			}
			again, _ := q.Get()
			if covered, _ := c.take(again); !covered {
				t.Error("an initial-list event after the take is not covered by the build")
			}
		}
		q.ShutDown()
	}
}
