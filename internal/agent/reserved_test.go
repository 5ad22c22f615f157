package agent_test

import (
	"context"
	"net/netip"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/testing/wait"
)

// TestAnotherNodesAddressIsRefused: the review's second claim, for the rest of the
// cluster, against the agent with a real API server. A Service's external IPs equal to
// another Node's InternalIP and inside its pod CIDR were announced (the agent knew only
// its own Node); they are not, the node's status names them with an event, and once
// that Node is deleted both are announced and the entry goes. A free address of the
// API server's Service CIDR (ServiceCIDR kubernetes) is refused too, and so is one of a
// ServiceCIDR created while the agent runs, which it withdraws.
func TestAnotherNodesAddressIsRefused(t *testing.T) {
	const node, other, ns = "reserve-node", "reserve-other", "svc-reserved"
	ensureNamespace(t)
	ctx := context.Background()
	if err := server.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	free, serviceCIDR, err := server.FreeServiceCIDRAddress(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pc, ad := externalIPSetup("reserved-ext", inNamespace(ns), "100.64.22.0/23")
	ad.Spec.Advertisements[0].Service.ExternalIPPrefixes = append(ad.Spec.Advertisements[0].Service.ExternalIPPrefixes,
		"100.64.24.0/24", kbgpv1.CIDR(netip.PrefixFrom(free, free.BitLen()).String()))
	otherNode := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: other}, Spec: corev1.NodeSpec{PodCIDR: "100.64.23.0/24", PodCIDRs: []string{"100.64.23.0/24"}}}
	create(t, testNode(node), otherNode, pc, ad, nodeConfig(node, peer("tor", addrA, 65010, "reserved-ext")))
	otherNode.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "100.64.22.5"}, {Type: corev1.NodeHostName, Address: other}}
	if err := server.Client.Status().Update(ctx, otherNode); err != nil {
		t.Fatal(err)
	}
	create(t,
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "squat"},
			Spec: corev1.ServiceSpec{ExternalIPs: []string{"100.64.22.5", "100.64.23.7"}, Ports: []corev1.ServicePort{{Port: 80}}}},
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "free"},
			Spec: corev1.ServiceSpec{ExternalIPs: []string{free.String()}, Ports: []corev1.ServicePort{{Port: 80}}}},
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "later"},
			Spec: corev1.ServiceSpec{ExternalIPs: []string{"100.64.24.9"}, Ports: []corev1.ServicePort{{Port: 80}}}})
	routers, _ := startAgent(t, server.Config, node)
	r := speaker(t, routers)

	entry := func(name, want string) func() bool {
		return func() bool {
			return slices.ContainsFunc(getStatus(t, node).FailedResources, func(f kbgpv1.FailedResource) bool {
				return f.Kind == "Service" && f.Name == ns+"/"+name && f.Message == want
			})
		}
	}
	const squat = "ExternalIP 100.64.22.5 is an address of Node " + other + "; ExternalIP 100.64.23.7 is in the pod CIDR 100.64.23.0/24 of Node " + other + ": not announced"
	freeMsg := "ExternalIP " + free.String() + " is in the Service CIDR " + serviceCIDR.String() + " of ServiceCIDR kubernetes: not announced"
	wait.Eventually(t, 30*time.Second, "the squatter of another Node's addresses in failedResources", entry("squat", squat))
	wait.Eventually(t, 30*time.Second, "the squatter of a free Service-CIDR address in failedResources", entry("free", freeMsg))
	wait.Eventually(t, 30*time.Second, "an address nobody reserves announced", func() bool {
		return containsPrefix(r.Advertised(addrA), hostRoute("100.64.24.9"))
	})
	for _, ip := range []string{"100.64.22.5", "100.64.23.7", free.String()} {
		if containsPrefix(r.Advertised(addrA), hostRoute(ip)) {
			t.Errorf("reserved address %s advertised", ip)
		}
	}
	waitEvent(t, node, "AddressNotAllowed: Service "+ns+"/squat: "+squat)

	// A ServiceCIDR created while the agent runs takes its address away.
	create(t, &networkingv1.ServiceCIDR{ObjectMeta: metav1.ObjectMeta{Name: "reserve-extra"}, Spec: networkingv1.ServiceCIDRSpec{CIDRs: []string{"100.64.24.0/24"}}})
	wait.Eventually(t, 30*time.Second, "an address of a new ServiceCIDR withdrawn and reported", func() bool {
		return !containsPrefix(r.Advertised(addrA), hostRoute("100.64.24.9")) &&
			entry("later", "ExternalIP 100.64.24.9 is in the Service CIDR 100.64.24.0/24 of ServiceCIDR reserve-extra: not announced")()
	})

	if err := server.Client.Delete(ctx, otherNode); err != nil {
		t.Fatal(err)
	}
	wait.Eventually(t, 30*time.Second, "the Node's addresses announced once it is gone, and no longer reported", func() bool {
		ads := r.Advertised(addrA)
		return containsPrefix(ads, hostRoute("100.64.22.5")) && containsPrefix(ads, hostRoute("100.64.23.7")) && !entry("squat", squat)()
	})
}
