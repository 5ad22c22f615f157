package operator_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/operator"
)

// TestFirstPoolAdoptsAddressesInStatus is the hand-over from another allocator (or
// from addresses written by hand): Services already hold addresses in their status
// when the first pool covering them is created, next to as many Services waiting for
// one. Every holder keeps its address, whichever Service the operator serves first, and
// the newcomers get the rest.
func TestFirstPoolAdoptsAddressesInStatus(t *testing.T) {
	ctx := context.Background()
	var pools kbgpv1.LoadBalancerIPPoolList
	if err := server.Client.List(ctx, &pools); err != nil || len(pools.Items) > 0 {
		t.Fatalf("the test needs an API server without pools: %v %d", err, len(pools.Items))
	}
	startOperator(t, operator.Options{})
	ns := "lbadopt"
	createNamespace(t, ns)
	const n = 16
	for i := range n {
		holder := lbService(ns, fmt.Sprintf("holder-%d", i), nil)
		createObject(t, holder)
		holder.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: fmt.Sprintf("198.51.100.%d", i)}}
		if err := server.Client.Status().Update(ctx, holder); err != nil {
			t.Fatal(err)
		}
		createObject(t, lbService(ns, fmt.Sprintf("newcomer-%d", i), nil))
	}
	// With no pool the operator stands aside: the hand-written addresses stay.
	time.Sleep(time.Second)
	for i := range n {
		ingressOf(t, ns, fmt.Sprintf("holder-%d", i), fmt.Sprintf("198.51.100.%d", i))
		ingressOf(t, ns, fmt.Sprintf("newcomer-%d", i))
	}

	createObject(t, lbPool("lbadopt", ns, kbgpv1.IPBlock{CIDR: "198.51.100.0/27"}))
	seen := map[string]string{}
	for i := range n {
		ingressOf(t, ns, fmt.Sprintf("holder-%d", i), fmt.Sprintf("198.51.100.%d", i))
	}
	for i := range n {
		name := fmt.Sprintf("newcomer-%d", i)
		eventually(t, 20*time.Second, "an address for "+name, func() error {
			got, err := ingress(ns, name)
			if err != nil || len(got) != 1 {
				return fmt.Errorf("ingress %v %v", got, err)
			}
			if other, dup := seen[got[0]]; dup && other != name {
				return fmt.Errorf("%s also holds %s", other, got[0])
			}
			seen[got[0]] = name
			return nil
		})
	}
	// The holders still have theirs: no newcomer took one on the way.
	for i := range n {
		ingressOf(t, ns, fmt.Sprintf("holder-%d", i), fmt.Sprintf("198.51.100.%d", i))
	}
}
