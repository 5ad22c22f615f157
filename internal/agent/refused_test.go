package agent_test

import (
	"context"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
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
	eventually(t, 30*time.Second, "the refused Service in failedResources", refusedEntry)
	if ads := r.Advertised(addrA); len(ads) != 0 {
		t.Errorf("refused address advertised: %v", ads)
	}
	waitEvent(t, node, "AddressNotAllowed: Service "+ns+"/web: "+want)

	svc.Spec.ExternalIPs = []string{"100.64.20.1"}
	if err := server.Client.Update(ctx, svc); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "announced inside the range and no longer reported", func() bool {
		return containsPrefix(r.Advertised(addrA), hostRoute("100.64.20.1")) && !refusedEntry()
	})
}
