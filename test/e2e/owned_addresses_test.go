package e2e

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/test/e2e/netlab"
)

// ownedAddressesScenario: the review's second and third claims against FRR. Inside
// externalIPPrefixes that allow every one of them, Services of namespace e2e-squat claim
// another namespace's external IP (its owner is announced by no advertisement here), the
// cluster IP of `kubernetes`, the node's address, a pod IP of the node, another Node's
// address and pod IP, and a free address of the Service CIDR; one more lists 64
// external IPs. None of these reaches FRR, each is named in the node's
// failedResources, and the node's other routes stay: a Service of the same namespace
// with an address of its own, and the pod CIDR.
func (tp *peeringTopology) ownedAddressesScenario(t *testing.T) {
	tp.waitAllEstablished(t)
	ctx := context.Background()
	kubernetes := &corev1.Service{}
	if err := server.Client.Get(ctx, client.ObjectKey{Namespace: "default", Name: "kubernetes"}, kubernetes); err != nil {
		t.Fatal(err)
	}
	const (
		ownerIP, ownIP = "100.64.14.1", "100.64.16.1"
		nodeIP, podIP  = "198.51.100.1", "10.244.1.7"
	)
	const otherNodeIP, otherPodIP = "100.64.17.5", "100.64.18.7"
	clusterIP := kubernetes.Spec.ClusterIP
	freeIP, serviceCIDR, err := server.FreeServiceCIDRAddress(ctx)
	if err != nil {
		t.Fatal(err)
	}
	other := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: tp.nodeName + "-other"}, Spec: corev1.NodeSpec{PodCIDR: "100.64.18.0/24", PodCIDRs: []string{"100.64.18.0/24"}}}
	create(t, other)
	other.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: otherNodeIP}}
	if err := server.Client.Status().Update(ctx, other); err != nil {
		t.Fatal(err)
	}
	for _, ns := range []string{"e2e-owner", "e2e-squat"} {
		if err := server.EnsureNamespace(ctx, ns); err != nil {
			t.Fatal(err)
		}
	}
	create(t, &kbgpv1.BGPAdvertisement{
		ObjectMeta: metav1.ObjectMeta{Name: tp.nodeName + "-squat", Labels: map[string]string{"advertise": "e2e"}},
		Spec: kbgpv1.BGPAdvertisementSpec{Advertisements: []kbgpv1.Advertisement{{
			AdvertisementType: kbgpv1.AdvertisementService,
			Selector:          &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"kbgp.io/service-namespace": "e2e-squat"}},
			Service: &kbgpv1.ServiceAdvertisement{Addresses: []kbgpv1.ServiceAddressType{kbgpv1.ServiceExternalIP},
				ExternalIPPrefixes: []kbgpv1.CIDR{"100.64.14.0/24", "100.64.15.0/24", "100.64.16.0/24", "100.64.17.0/24", "100.64.18.0/24",
					nodeIP + "/32", podCIDR4, kbgpv1.CIDR(clusterIP + "/32"), kbgpv1.CIDR(freeIP.String() + "/32")}},
		}}},
	})
	external := func(namespace, name string, ips ...string) {
		create(t, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
			Spec: corev1.ServiceSpec{ExternalIPs: ips, Ports: []corev1.ServicePort{{Port: 80}}}})
	}
	external("e2e-owner", "web", ownerIP)
	time.Sleep(1100 * time.Millisecond) // creation times have a resolution of a second
	external("e2e-squat", "own", ownIP)
	external("e2e-squat", "owner", ownerIP)
	external("e2e-squat", "cluster", clusterIP)
	external("e2e-squat", "node", nodeIP)
	external("e2e-squat", "pod", podIP)
	external("e2e-squat", "othernode", otherNodeIP)
	external("e2e-squat", "otherpod", otherPodIP)
	external("e2e-squat", "free", freeIP.String())
	var flood []string
	for i := range 64 {
		flood = append(flood, netip.AddrFrom4([4]byte{100, 64, 15, byte(i + 1)}).String())
	}
	external("e2e-squat", "flood", flood...)

	waitFRRRoute(t, tp.frr, ownIP+"/32", true, "")
	want := map[string]string{
		"e2e-squat/owner": "ExternalIP " + ownerIP + " is the ExternalIP of Service e2e-owner/web of another namespace",
		// Inside the Service CIDR: refused for that before its owner is looked at.
		"e2e-squat/cluster":   "ExternalIP " + clusterIP + " is in the Service CIDR " + serviceCIDR.String() + " of ServiceCIDR kubernetes",
		"e2e-squat/othernode": "ExternalIP " + otherNodeIP + " is an address of Node " + other.Name,
		"e2e-squat/otherpod":  "ExternalIP " + otherPodIP + " is in the pod CIDR 100.64.18.0/24 of Node " + other.Name,
		"e2e-squat/free":      "ExternalIP " + freeIP.String() + " is in the Service CIDR " + serviceCIDR.String() + " of ServiceCIDR kubernetes",
		"e2e-squat/node":      "ExternalIP " + nodeIP + " is an address of this node or in its pod CIDRs",
		"e2e-squat/pod":       "ExternalIP " + podIP + " is an address of this node or in its pod CIDRs",
		"e2e-squat/flood":     "64 addresses of one family exceed the maxAddressesPerService 8",
	}
	netlab.WaitFor(t, sessionTimeout, 300*time.Millisecond, func() (bool, string) {
		nc := &kbgpv1.BGPNodeConfig{}
		if err := server.Client.Get(ctx, client.ObjectKey{Name: tp.nodeName}, nc); err != nil {
			return false, err.Error()
		}
		missing := []string{}
		for name, msg := range want {
			found := false
			for _, f := range nc.Status.FailedResources {
				found = found || (f.Kind == "Service" && f.Name == name && strings.Contains(f.Message, msg))
			}
			if !found {
				missing = append(missing, name)
			}
		}
		return len(missing) == 0, fmt.Sprintf("not reported: %v; failedResources %v", missing, nc.Status.FailedResources)
	})
	routes, err := tp.frr.Routes("ipv4")
	if err != nil {
		t.Fatal(err)
	}
	for _, ip := range append([]string{ownerIP, clusterIP, nodeIP, podIP, otherNodeIP, otherPodIP, freeIP.String()}, flood...) {
		if _, ok := routes[ip+"/32"]; ok {
			t.Errorf("%s/32 reached FRR", ip)
		}
	}
	for _, p := range []string{ownIP + "/32", podCIDR4} {
		if _, ok := routes[p]; !ok {
			t.Errorf("%s left FRR", p)
		}
	}
}
