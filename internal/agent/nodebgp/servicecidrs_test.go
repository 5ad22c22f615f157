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
	"k8s.io/apimachinery/pkg/runtime"
	fakediscovery "k8s.io/client-go/discovery/fake"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	crfake "sigs.k8s.io/controller-runtime/pkg/client/fake"

	"kbgp.io/kbgp/internal/intent"
	"kbgp.io/kbgp/internal/nodeinput"
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
		return newServiceCIDRWatch(disc, cs, slog.New(slog.NewTextHandler(&logs, nil)), func() { changed <- struct{}{} })
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

// TestFirstBuildWaitsForServiceCIDRs: the agent's first full build reads the reserved
// addresses only once the ServiceCIDRs are listed (under load their list, which runs
// beside the caches, can come after the caches synced), so that it never announces a
// free address of the Service CIDR only to withdraw it as the list arrives. Later
// builds do not wait, and a watch that never lists is waited for only so long.
func TestFirstBuildWaitsForServiceCIDRs(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cs := fake.NewClientset(&networkingv1.ServiceCIDR{ObjectMeta: metav1.ObjectMeta{Name: "kubernetes"},
		Spec: networkingv1.ServiceCIDRSpec{CIDRs: []string{"10.96.0.0/16"}}})
	disc := &fakediscovery.FakeDiscovery{Fake: &k8stesting.Fake{}}
	disc.Resources = []*metav1.APIResourceList{{GroupVersion: "networking.k8s.io/v1", APIResources: []metav1.APIResource{{Name: "servicecidrs"}}}}
	answer := make(chan struct{})
	disc.PrependReactor("get", "resource", func(k8stesting.Action) (bool, runtime.Object, error) {
		<-answer // the API server is slow to say what it serves
		return false, nil, nil
	})
	logger := slog.New(slog.DiscardHandler)
	w := newServiceCIDRWatch(disc, cs, logger, func() {})
	go func() { _ = w.Start(ctx) }()
	r := &Reconciler{client: crfake.NewClientBuilder().Build(), serviceCIDRs: w, logger: logger}

	type read struct {
		res *intent.Reserved
		err error
	}
	first := make(chan read, 1)
	go func() {
		res, err := r.readReserved(ctx)
		first <- read{res, err}
	}()
	select {
	case got := <-first:
		t.Fatalf("the first build read the reservations before the ServiceCIDRs were listed (error %v)", got.err)
	case <-time.After(300 * time.Millisecond):
	}
	close(answer)
	select {
	case got := <-first:
		if got.err != nil || !slices.Equal(got.res.Owners(nodeinput.ServiceCIDROwner), []string{"kubernetes"}) {
			t.Fatalf("the first build read error %v or no ServiceCIDR kubernetes", got.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the first build still waits after the ServiceCIDRs were listed")
	}

	// A watch that has not listed: a later build reads what it knows, at once.
	r.serviceCIDRs = newServiceCIDRWatch(disc, cs, logger, func() {})
	began := time.Now()
	if res, err := r.readReserved(ctx); err != nil || len(res.Owners(nodeinput.ServiceCIDROwner)) != 0 {
		t.Fatalf("a later build read error %v or a ServiceCIDR its watch has not listed", err)
	}
	if waited := time.Since(began); waited > serviceCIDRWait/2 {
		t.Errorf("a later build waited %v for the ServiceCIDRs", waited)
	}
	if r.serviceCIDRs.listed(ctx, 50*time.Millisecond) {
		t.Error("a watch that never started says it listed")
	}
}
