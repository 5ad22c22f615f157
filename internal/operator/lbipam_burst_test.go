package operator_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/operator"
)

// TestLoadBalancerIPAMNoDoubleAllocationUnderLaggingWrites is bench B8's duplicate
// addresses made repeatable: a burst of Services against an operator whose client is
// throttled and whose Service status writes lag (each waits up to 400 ms before it is
// sent), with two pools (B8 had one per step) while one of them changes again and
// again, so the allocator is rebuilt from the API with writes in flight. A watch on the
// Services records every state the API went through; in none may two Services show one
// address (they share no key), not only in the last.
func TestLoadBalancerIPAMNoDoubleAllocationUnderLaggingWrites(t *testing.T) {
	const n = 200
	ns := "lbipam-burst"
	createNamespace(t, ns)
	pool := lbPool("lbburst", ns, kbgpv1.IPBlock{CIDR: "100.64.8.0/23"})
	createObject(t, pool)
	// A second pool, as B8 had one per step: the cache lists pools in no fixed order.
	createObject(t, lbPool("lbburst-other", "lbipam-burst-other", kbgpv1.IPBlock{CIDR: "100.64.14.0/24"}))

	slow := rest.CopyConfig(server.Config)
	slow.QPS, slow.Burst = 40, 20
	var lists atomic.Int64 // of every Service: at start, and one per rebuild
	slow.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			if req.Method == http.MethodGet && req.URL.Path == "/api/v1/services" && req.URL.Query().Get("watch") == "" {
				lists.Add(1)
			}
			if req.Method == http.MethodPut && strings.HasSuffix(req.URL.Path, "/status") && strings.Contains(req.URL.Path, "/services/") {
				time.Sleep(time.Duration(rand.IntN(400)) * time.Millisecond)
			}
			return rt.RoundTrip(req)
		})
	})
	startOperatorWithConfig(t, slow, operator.Options{})

	fast := rest.CopyConfig(server.Config)
	fast.QPS, fast.Burst = 1000, 2000
	writer, err := client.New(fast, client.Options{Scheme: server.Client.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deleteServices(t, writer, ns) })

	doubles := watchDoubles(t, fast, ns)

	var wg sync.WaitGroup
	errs := make(chan error, n)
	for w := range 8 {
		wg.Go(func() {
			for i := w; i < n; i += 8 {
				if err := writer.Create(context.Background(), lbService(ns, fmt.Sprintf("s-%04d", i), nil)); err != nil {
					errs <- err
				}
			}
		})
	}
	// Pool changes during the burst: each one is a new generation, so the operator
	// rebuilds its allocations from the Services' status while writes are in flight.
	// The second block is never needed: every Service fits in the first.
	const poolChanges = 12
	for i := range poolChanges {
		update(t, pool, func() {
			pool.Spec.Blocks = []kbgpv1.IPBlock{{CIDR: "100.64.8.0/23"}}
			if i%2 == 0 {
				pool.Spec.Blocks = append(pool.Spec.Blocks, kbgpv1.IPBlock{CIDR: "100.64.12.0/24"})
			}
		})
		time.Sleep(300 * time.Millisecond)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	eventually(t, 120*time.Second, "every Service to have an address", func() error {
		if got := assigned(t, ns); got != n {
			return fmt.Errorf("%d of %d assigned", got, n)
		}
		return nil
	})
	seen, events := doubles()
	if events < n {
		t.Fatalf("the watch saw %d Service events for %d Services", events, n)
	}
	if len(seen) > 0 {
		t.Fatalf("%d times an address was shown by two Services, first: %s", len(seen), seen[0])
	}
	// A rebuild lists every Service of the cluster: once per pool change, not once
	// per Service (the informer's list at start and the first rebuild are the slack).
	// The cache lists the two pools in no fixed order, and a fingerprint that followed
	// that order rebuilt on about every other reconcile.
	if got, most := lists.Load(), int64(2*poolChanges+4); got > most {
		t.Errorf("the operator listed every Service %d times for %d pool changes, want at most %d", got, poolChanges, most)
	}
}

// watchDoubles watches the namespace's Services and records each event after which two
// of them show one load-balancer address. The returned function stops the watch and
// returns what it saw and how many Service events it saw (a watch that saw nothing
// proves nothing). A watch error fails the test.
func watchDoubles(t *testing.T, cfg *rest.Config, ns string) func() (doubles []string, events int) {
	t.Helper()
	// From the watch cache's own revision: a watch from "now" waits for the cache to
	// reach etcd's latest revision, which this etcd (no progress notifications) only
	// brings about with the next Service event.
	services := kubernetes.NewForConfigOrDie(cfg).CoreV1().Services(ns)
	list, err := services.List(context.Background(), metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) > 0 {
		t.Fatalf("namespace %s is not empty", ns)
	}
	w, err := services.Watch(context.Background(), metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		seen   []string
		events int
	}
	done := make(chan result)
	// Stopping the watch closes its stream, which the client may report as one last
	// error event ("http2: response body closed"): only errors before that count.
	var stopping atomic.Bool
	go func() {
		shown := map[string][]string{} // Service → addresses
		var r result
		for ev := range w.ResultChan() {
			svc, ok := ev.Object.(*corev1.Service)
			if !ok {
				if !stopping.Load() {
					t.Errorf("watch of Services: %s %v", ev.Type, ev.Object)
				}
				continue
			}
			r.events++
			delete(shown, svc.Name)
			if ev.Type != watch.Deleted {
				for _, ing := range svc.Status.LoadBalancer.Ingress {
					shown[svc.Name] = append(shown[svc.Name], ing.IP)
				}
			}
			holder := map[string]string{}
			for name, ips := range shown {
				for _, ip := range ips {
					if other, dup := holder[ip]; dup {
						r.seen = append(r.seen, fmt.Sprintf("%s shown by %s and %s (resourceVersion %s)", ip, other, name, svc.ResourceVersion))
					}
					holder[ip] = name
				}
			}
		}
		done <- r
	}()
	return func() ([]string, int) {
		stopping.Store(true)
		w.Stop()
		r := <-done
		return r.seen, r.events
	}
}

// deleteServices deletes the namespace's Services one by one: Services have no
// delete-collection and the test server no namespace controller.
func deleteServices(t *testing.T, c client.Client, ns string) {
	t.Helper()
	var list corev1.ServiceList
	_ = c.List(context.Background(), &list, client.InNamespace(ns))
	var wg sync.WaitGroup
	for w := range 16 {
		wg.Go(func() {
			for i := w; i < len(list.Items); i += 16 {
				_ = c.Delete(context.Background(), &list.Items[i])
			}
		})
	}
	wg.Wait()
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// TestLoadBalancerIPAMOverlapsStatusWritesOfABurst: Services waiting at once have their
// status writes in flight together, up to the workers (32 by default), so a burst goes
// at workers / one write's round trip. With 8 workers (before), a burst of 1,000 on a
// loaded API server (0.3–0.5 s a write) took 40–60 s in bench B8. The Services exist
// before the operator starts, so its first list queues all of them at once; each
// status write is held 300 ms, long enough for the others to join it.
func TestLoadBalancerIPAMOverlapsStatusWritesOfABurst(t *testing.T) {
	const n = 64
	ns := "lbipam-overlap"
	createNamespace(t, ns)
	createObject(t, lbPool("lboverlap", ns, kbgpv1.IPBlock{CIDR: "100.64.16.0/24"}))
	fast := rest.CopyConfig(server.Config)
	fast.QPS, fast.Burst = 1000, 2000
	writer, err := client.New(fast, client.Options{Scheme: server.Client.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deleteServices(t, writer, ns) })
	for i := range n {
		createObject(t, lbService(ns, fmt.Sprintf("s-%02d", i), nil))
	}

	slow := rest.CopyConfig(fast)
	var inFlight, most atomic.Int64
	slow.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			if req.Method != http.MethodPut || !strings.HasSuffix(req.URL.Path, "/status") || !strings.Contains(req.URL.Path, "/namespaces/"+ns+"/services/") {
				return rt.RoundTrip(req)
			}
			now := inFlight.Add(1)
			defer inFlight.Add(-1)
			for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
			}
			time.Sleep(300 * time.Millisecond)
			return rt.RoundTrip(req)
		})
	})
	startOperatorWithConfig(t, slow, operator.Options{})
	eventually(t, 60*time.Second, "every Service to have an address", func() error {
		if got := assigned(t, ns); got != n {
			return fmt.Errorf("%d of %d assigned", got, n)
		}
		return nil
	})
	if got := most.Load(); got < 16 { // 32 by default: slack for a loaded machine
		t.Errorf("at most %d status writes were in flight together for %d Services waiting, want at least 16", got, n)
	}
	t.Logf("%d status writes in flight together at most", most.Load())
}
