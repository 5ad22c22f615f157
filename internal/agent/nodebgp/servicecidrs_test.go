package nodebgp

import (
	"bytes"
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	fakediscovery "k8s.io/client-go/discovery/fake"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// TestServiceCIDRWatch: on an API server without ServiceCIDRs the watch says so once
// and knows none; where they are served it lists them, stripped to their ranges, and
// says when they changed.
func TestServiceCIDRWatch(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cs := fake.NewClientset(&networkingv1.ServiceCIDR{ObjectMeta: metav1.ObjectMeta{Name: "kubernetes", Labels: map[string]string{"x": "y"}},
		Spec: networkingv1.ServiceCIDRSpec{CIDRs: []string{"10.96.0.0/16", "2001:db8:96::/112"}}})
	disc := &fakediscovery.FakeDiscovery{Fake: &k8stesting.Fake{}}
	var logs bytes.Buffer
	changed := make(chan struct{}, 16)
	watch := func() *serviceCIDRWatch {
		return &serviceCIDRWatch{discovery: disc, clientset: cs, logger: slog.New(slog.NewTextHandler(&logs, nil)),
			changed: func() { changed <- struct{}{} }}
	}

	w := watch()
	if err := w.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(logs.String(), "serves no networking.k8s.io/v1 ServiceCIDRs"); n != 1 || w.all() != nil {
		t.Fatalf("not served: logged %d times, knows %v:\n%s", n, w.all(), logs.String())
	}

	disc.Resources = []*metav1.APIResourceList{{GroupVersion: "networking.k8s.io/v1", APIResources: []metav1.APIResource{{Name: "servicecidrs"}}}}
	w = watch()
	go func() { _ = w.Start(ctx) }()
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no change after the first list")
	}
	if got := w.all(); len(got) != 1 || !slices.Equal(got["kubernetes"], []string{"10.96.0.0/16", "2001:db8:96::/112"}) {
		t.Fatalf("served: knows %v", got)
	}
	for _, obj := range (*w.store.Load()).List() {
		if obj.(*networkingv1.ServiceCIDR).Labels != nil {
			t.Error("a cached ServiceCIDR kept its labels")
		}
	}
}
