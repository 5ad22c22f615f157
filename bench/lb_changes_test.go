//go:build bench

package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kbgp.io/kbgp/test/apiserver"
)

// lbBlock is the i-th /20 of 100.64.0.0/10, where B2 and B3 take load-balancer IPs:
// apart from the bulk routes, and small, so that FRR can be polled for just one block
// (see routesUnder) at the same cost whatever else it holds.
func lbBlock(i int) netip.Prefix {
	return netip.PrefixFrom(netip.AddrFrom4([4]byte{100, 64 + byte(i/16), byte(i%16) * 16, 0}), 20)
}

// changeWorkers write Service status in parallel; each owns the Services whose index
// is its own modulo changeWorkers, so edits of one Service never race.
const changeWorkers = 16

// lbPool is a set of LoadBalancer Services whose status.loadBalancer.ingress the
// benchmark edits as a load-balancer IPAM would, through a client without rate limit.
type lbPool struct {
	c     client.Client
	names []string
	ips   [][]netip.Addr // current ingress of each Service, owned by its worker
}

// newLBPool creates n LoadBalancer Services without node ports and without ingress.
func newLBPool(t *testing.T, server *apiserver.Server, n int) *lbPool {
	cfg := rest.CopyConfig(server.Config)
	cfg.QPS, cfg.Burst = -1, 0
	c, err := client.New(cfg, client.Options{Scheme: server.Client.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	p := &lbPool{c: c, names: make([]string, n), ips: make([][]netip.Addr, n)}
	for i := range n {
		p.names[i] = fmt.Sprintf("lb-%03d", i)
		mustCreate(t, c, &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: p.names[i], Namespace: "default"},
			Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, AllocateLoadBalancerNodePorts: ptr.To(false),
				Ports: []corev1.ServicePort{{Port: 80}}},
		})
	}
	return p
}

// set writes Service i's ingress (a JSON merge patch of the status replaces the list).
func (p *lbPool) set(i int, ips []netip.Addr) error {
	ingress := make([]map[string]string, len(ips))
	for j, a := range ips {
		ingress[j] = map[string]string{"ip": a.String()}
	}
	body, err := json.Marshal(map[string]any{"status": map[string]any{"loadBalancer": map[string]any{"ingress": ingress}}})
	if err != nil {
		return err
	}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: p.names[i], Namespace: "default"}}
	if err := p.c.Status().Patch(context.Background(), svc, client.RawPatch(types.MergePatchType, body)); err != nil {
		return err
	}
	p.ips[i] = ips
	return nil
}

// paced is the record of one driven sequence of changes.
type paced struct {
	sent  []time.Time // when change k's API call started; zero if it was not made
	done  []time.Time // when change k's API call returned
	calls durations   // how long each API call took
	made  int
}

// achieved is the rate at which changes were sent, first to last.
func (r paced) achieved() float64 {
	var first, last time.Time
	for _, s := range r.sent {
		if s.IsZero() {
			continue
		}
		if first.IsZero() || s.Before(first) {
			first = s
		}
		if s.After(last) {
			last = s
		}
	}
	if r.made < 2 {
		return 0
	}
	return float64(r.made-1) / last.Sub(first).Seconds()
}

// drive makes up to n changes at rate per second (as fast as the API server takes
// them when that is slower), none after limit (0: no limit): change k edits Service
// k mod len(names), whose new ingress edit computes from its current one. A Service's
// changes all go to one worker, so they never race.
func (p *lbPool) drive(t *testing.T, rate float64, n int, limit time.Duration, edit func(k int, cur []netip.Addr) []netip.Addr) paced {
	return pace(t, rate, n, limit, func(k int) int { return (k % len(p.names)) % changeWorkers }, func(k int) error {
		i := k % len(p.names)
		return p.set(i, edit(k, p.ips[i]))
	})
}

// pace calls do(k) for k < n at rate per second (as fast as the API server answers
// when that is slower), none after limit (0: no limit), from changeWorkers goroutines
// (call k on worker queueOf(k)), and records when each call started.
func pace(t *testing.T, rate float64, n int, limit time.Duration, queueOf func(k int) int, do func(k int) error) paced {
	return paceWith(t, changeWorkers, rate, n, limit, queueOf, do)
}

// paceWith is pace from workers goroutines (queueOf(k) < workers).
func paceWith(t *testing.T, workers int, rate float64, n int, limit time.Duration, queueOf func(k int) int, do func(k int) error) paced {
	rec := paced{sent: make([]time.Time, n), done: make([]time.Time, n), calls: make(durations, 0, n)}
	var mu sync.Mutex
	start := time.Now()
	over := func() bool { return limit > 0 && time.Since(start) >= limit }
	queues := make([]chan int, workers)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for w := range queues {
		queues[w] = make(chan int, n)
		wg.Go(func() {
			for k := range queues[w] {
				if over() {
					continue
				}
				sent := time.Now()
				if err := do(k); err != nil {
					errs <- err
					continue
				}
				now := time.Now()
				mu.Lock()
				rec.sent[k], rec.done[k] = sent, now
				rec.calls = append(rec.calls, now.Sub(sent))
				rec.made++
				mu.Unlock()
			}
		})
	}
	for k := 0; k < n && !over(); k++ {
		time.Sleep(time.Until(start.Add(time.Duration(float64(k) / rate * float64(time.Second)))))
		queues[queueOf(k)] <- k
	}
	for _, q := range queues {
		close(q)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	return rec
}
