package nodebgp

import (
	"context"
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// countingReader answers Get with node (or err) and counts the calls: the API reads.
type countingReader struct {
	client.Reader
	node *corev1.Node
	err  error
	gets int
}

func (r *countingReader) Get(_ context.Context, _ client.ObjectKey, obj client.Object, _ ...client.GetOption) error {
	r.gets++
	if r.err != nil {
		return r.err
	}
	r.node.DeepCopyInto(obj.(*corev1.Node))
	return nil
}

func TestNodeGetterCachesForTheTTL(t *testing.T) {
	ctx := context.Background()
	r := &countingReader{node: &corev1.Node{}}
	r.node.Name = "worker-1"
	g := &nodeGetter{reader: r, name: "worker-1"}
	for range 3 {
		if n, err := g.get(ctx, false); err != nil || n.Name != "worker-1" {
			t.Fatalf("get = %v, %v", n, err)
		}
	}
	if r.gets != 1 {
		t.Fatalf("%d API reads for 3 gets within the TTL, want 1", r.gets)
	}
	if _, err := g.get(ctx, true); err != nil || r.gets != 2 {
		t.Fatalf("a fresh get made %d reads in all (%v), want 2", r.gets, err)
	}
	g.fetchedAt = time.Now().Add(-nodeCacheTTL)
	if _, err := g.get(ctx, false); err != nil || r.gets != 3 {
		t.Fatalf("an expired entry made %d reads in all (%v), want 3", r.gets, err)
	}

	// API server down: the last Node read is kept, with the error.
	r.err = errors.New("connection refused")
	if n, err := g.get(ctx, true); err == nil || n == nil || n.Name != "worker-1" {
		t.Fatalf("during an outage get = %v, %v; want the last Node and the error", n, err)
	}
	// Deleted: nil, no error.
	r.err = apierrors.NewNotFound(schema.GroupResource{Resource: "nodes"}, "worker-1")
	if n, err := g.get(ctx, true); err != nil || n != nil {
		t.Fatalf("a deleted Node: get = %v, %v; want nil, nil", n, err)
	}
}

func TestRouterIDBackoff(t *testing.T) {
	now := time.Now()
	r := &routerIDs{}
	if d := r.retryAfter(now); d != 0 {
		t.Fatalf("not waiting, retry after %s", d)
	}
	var got []time.Duration
	for range 10 {
		r.trackWait(true, now)
		got = append(got, r.retryAfter(now))
	}
	// 1 s doubling, the 10th (512 s) capped by what is left of the 5-minute wait.
	want := []time.Duration{1, 2, 4, 8, 16, 32, 64, 128, 256, 300}
	for i, w := range want {
		if got[i] != w*time.Second {
			t.Fatalf("backoff %v, want %v seconds", got, want)
		}
	}
	if d := r.retryAfter(now.Add(maxNodeWait + time.Second)); d != maxNodeWait {
		t.Fatalf("after the wait, retry after %s, want %s", d, maxNodeWait)
	}
	r.trackWait(false, now)
	if r.pending() {
		t.Fatal("still waiting after a resolution")
	}
}
