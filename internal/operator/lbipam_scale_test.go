package operator_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// TestLoadBalancerIPAMThousandServicesAcrossLeaderChange creates 1,000 LoadBalancer
// Services at once against two operator replicas, stops the leader when about a third
// have addresses, and checks that every Service ends with one address and no two share
// one: the new leader rebuilds from the API what the old one handed out.
func TestLoadBalancerIPAMThousandServicesAcrossLeaderChange(t *testing.T) {
	const n = 1000
	ns := "lbipam-scale"
	createNamespace(t, ns)
	createObject(t, lbPool("lbscale", ns, kbgpv1.IPBlock{CIDR: "100.64.0.0/22"}))

	fast := rest.CopyConfig(server.Config)
	fast.QPS, fast.Burst = 1000, 2000
	opts := leaderElected()
	a := startOperatorWithConfig(t, fast, opts)
	waitElected(t, a, "first replica")
	b := startOperatorWithConfig(t, fast, opts)

	writer, err := client.New(fast, client.Options{Scheme: server.Client.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deleteServices(t, writer, ns) })
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for w := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 16 {
				if err := writer.Create(context.Background(), lbService(ns, fmt.Sprintf("s-%04d", i), nil)); err != nil {
					errs <- err
				}
			}
		}()
	}

	eventually(t, 60*time.Second, "a third of the Services to have addresses", func() error {
		if got := assigned(t, ns); got < n/3 {
			return fmt.Errorf("%d assigned", got)
		}
		return nil
	})
	a.stop()
	before := addresses(t, ns)
	waitElected(t, b, "standby after the leader stopped")
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
	after := addresses(t, ns)
	holder := map[string]string{}
	for name, ips := range after {
		if len(ips) != 1 {
			t.Fatalf("%s has addresses %v", name, ips)
		}
		if other, dup := holder[ips[0]]; dup {
			t.Fatalf("%s given to both %s and %s", ips[0], other, name)
		}
		holder[ips[0]] = name
	}
	// What the old leader handed out, the new one kept.
	for name, ips := range before {
		if len(ips) > 0 && !slices.Equal(after[name], ips) {
			t.Errorf("%s moved from %v to %v across the leader change", name, ips, after[name])
		}
	}
	poolStatus(t, "lbscale", exhausted("False", n, 1024))
}

// assigned counts the namespace's Services with an address.
func assigned(t *testing.T, ns string) int {
	t.Helper()
	count := 0
	for _, ips := range addresses(t, ns) {
		if len(ips) > 0 {
			count++
		}
	}
	return count
}

// addresses are the load-balancer addresses of the namespace's Services, by name.
func addresses(t *testing.T, ns string) map[string][]string {
	t.Helper()
	var list corev1.ServiceList
	if err := server.Client.List(context.Background(), &list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	out := make(map[string][]string, len(list.Items))
	for _, s := range list.Items {
		var ips []string
		for _, ing := range s.Status.LoadBalancer.Ingress {
			ips = append(ips, ing.IP)
		}
		out[s.Name] = ips
	}
	return out
}
