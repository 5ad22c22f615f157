package report

import (
	"context"
	"io"
	"log/slog"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"kbgp.io/kbgp/internal/contract"
)

// TestLeaseRenewalReadsOnlyAfterAFailedUpdate: a renewal updates the Lease it last
// wrote without reading it first, and reads it again only when that update fails (here
// another writer changed the Lease meanwhile). Reading before every update doubled
// the requests of a fleet at rest (bench B10).
func TestLeaseRenewalReadsOnlyAfterAFailedUpdate(t *testing.T) {
	ctx := context.Background()
	scheme := runtime.NewScheme()
	if err := coordinationv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	gets, updates := 0, 0
	c := fake.NewClientBuilder().WithScheme(scheme).WithInterceptorFuncs(interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			gets++
			return c.Get(ctx, key, obj, opts...)
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			updates++
			return c.Update(ctx, obj, opts...)
		},
	}).Build()
	l := NewLeaseRenewer(c, c, "kbgp-system", "node-a", nil, slog.New(slog.NewTextHandler(io.Discard, nil)))

	for range 3 {
		if err := l.renew(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// The first renewal reads (and creates), the next two only update.
	if gets != 1 || updates != 2 {
		t.Fatalf("three renewals: %d reads, %d updates; want 1 read, 2 updates", gets, updates)
	}

	// Another writer changes the Lease: the next update conflicts, then the renewal
	// reads it and updates it.
	var lease coordinationv1.Lease
	if err := c.Get(ctx, client.ObjectKey{Namespace: "kbgp-system", Name: contract.AgentLeaseName("node-a")}, &lease); err != nil {
		t.Fatal(err)
	}
	lease.Labels = map[string]string{"touched": "yes"}
	if err := c.Update(ctx, &lease); err != nil {
		t.Fatal(err)
	}
	gets, updates = 0, 0
	if err := l.renew(ctx); err != nil {
		t.Fatal(err)
	}
	if gets != 1 || updates != 2 {
		t.Fatalf("renewal after a conflict: %d reads, %d updates; want 1 read, 2 updates (the conflicting one, then the one that lands)", gets, updates)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(&lease), &lease); err != nil {
		t.Fatal(err)
	}
	if lease.Labels["touched"] != "yes" || *lease.Spec.HolderIdentity != "node-a" {
		t.Fatalf("the renewal lost the other writer's change or the holder: %+v", lease)
	}
}
