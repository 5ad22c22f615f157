package agent_test

import (
	"context"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/testing/wait"
)

// TestRefusedAddressIsReportedNotDropped: a Service whose external IP lies outside the
// advertisement's externalIPPrefixes is not announced, and the node's status names it
// (failedResources, Degraded) with an AddressNotAllowed event; moved inside the range
// the address is announced and the entry goes, both on the Service hot path.
func TestRefusedAddressIsReportedNotDropped(t *testing.T) {
	const node, ns = "refused-node", "svc-refused"
	ensureNamespace(t)
	ctx := context.Background()
	if err := server.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	pc, ad := externalIPSetup("refused-ext", inNamespace(ns), "100.64.20.0/24")
	create(t, testNode(node), pc, ad, nodeConfig(node, peer("tor", addrA, 65010, "refused-ext")))
	routers, _ := startAgent(t, server.Config, node)
	r := speaker(t, routers)

	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"},
		Spec: corev1.ServiceSpec{ExternalIPs: []string{"100.64.99.1"}, Ports: []corev1.ServicePort{{Port: 80}}}}
	create(t, svc)
	const want = "ExternalIP 100.64.99.1 is outside the externalIPPrefixes of BGPAdvertisement refused-ext: not announced"
	refusedEntry := func() bool {
		return slices.ContainsFunc(getStatus(t, node).FailedResources, func(f kbgpv1.FailedResource) bool {
			return f.Kind == "Service" && f.Name == ns+"/web" && f.Message == want
		})
	}
	wait.Eventually(t, 30*time.Second, "the refused Service in failedResources", refusedEntry)
	if ads := r.Advertised(addrA); len(ads) != 0 {
		t.Errorf("refused address advertised: %v", ads)
	}
	waitEvent(t, node, "AddressNotAllowed: Service "+ns+"/web: "+want)

	svc.Spec.ExternalIPs = []string{"100.64.20.1"}
	if err := server.Client.Update(ctx, svc); err != nil {
		t.Fatal(err)
	}
	wait.Eventually(t, 30*time.Second, "announced inside the range and no longer reported", func() bool {
		return containsPrefix(r.Advertised(addrA), hostRoute("100.64.20.1")) && !refusedEntry()
	})
}

// TestAnotherNamespacesExternalIPIsRefused: the review's second claim against the
// agent. A Service claims the external IP an older Service of another namespace holds;
// an advertisement selects only the squatter (the owner is announced by no node here),
// and before this change the node announced the squatter's /32. It is not announced,
// the node's status names it with an event, and once the owner is deleted the squatter
// announces it and its entry goes, on the Service hot path of the owner's event.
func TestAnotherNamespacesExternalIPIsRefused(t *testing.T) {
	const node, owners, squatters = "owned-node", "ext-owner", "ext-squatter"
	ensureNamespace(t)
	ctx := context.Background()
	for _, ns := range []string{owners, squatters} {
		if err := server.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
	}
	pc, ad := externalIPSetup("owned-ext", inNamespace(squatters), "100.64.21.0/24")
	create(t, testNode(node), pc, ad, nodeConfig(node, peer("tor", addrA, 65010, "owned-ext")))
	owner := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: owners, Name: "web"},
		Spec: corev1.ServiceSpec{ExternalIPs: []string{"100.64.21.1"}, Ports: []corev1.ServicePort{{Port: 80}}}}
	create(t, owner)
	time.Sleep(1100 * time.Millisecond) // creation times have a resolution of a second
	create(t, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: squatters, Name: "squat"},
		Spec: corev1.ServiceSpec{ExternalIPs: []string{"100.64.21.1"}, Ports: []corev1.ServicePort{{Port: 81}}}})
	routers, _ := startAgent(t, server.Config, node)
	r := speaker(t, routers)

	const want = "ExternalIP 100.64.21.1 is the ExternalIP of Service " + owners + "/web of another namespace: not announced"
	refusedEntry := func() bool {
		return slices.ContainsFunc(getStatus(t, node).FailedResources, func(f kbgpv1.FailedResource) bool {
			return f.Kind == "Service" && f.Name == squatters+"/squat" && f.Message == want
		})
	}
	wait.Eventually(t, 30*time.Second, "the squatter in failedResources", refusedEntry)
	if ads := r.Advertised(addrA); len(ads) != 0 {
		t.Errorf("another namespace's external IP advertised: %v", ads)
	}
	waitEvent(t, node, "AddressNotAllowed: Service "+squatters+"/squat: "+want)

	if err := server.Client.Delete(ctx, owner); err != nil {
		t.Fatal(err)
	}
	wait.Eventually(t, 30*time.Second, "the squatter announces the address once the owner is gone, and is no longer reported", func() bool {
		return containsPrefix(r.Advertised(addrA), hostRoute("100.64.21.1")) && !refusedEntry()
	})
}
