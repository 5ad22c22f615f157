package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/test/e2e/netlab"
)

// Service addresses of the e2e: shared address space, on no link of the lab.
const (
	webIP   = "100.64.10.10"
	localIP = "100.64.10.11"
)

// loadBalancer creates a LoadBalancer Service and gives it ip, as a load-balancer IPAM
// would.
func loadBalancer(t *testing.T, name, ip string, policy corev1.ServiceExternalTrafficPolicy) *corev1.Service {
	t.Helper()
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, ExternalTrafficPolicy: policy,
			Ports: []corev1.ServicePort{{Port: 80}}},
	}
	create(t, svc)
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: ip}}
	if err := server.Client.Status().Update(context.Background(), svc); err != nil {
		t.Fatal(err)
	}
	return svc
}

// endpointSlice is the Service's slice with one endpoint on node, ready or not.
func endpointSlice(svc, node string, ready bool) *discoveryv1.EndpointSlice {
	return &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Namespace: "default", Name: svc + "-1", Labels: map[string]string{discoveryv1.LabelServiceName: svc}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.244.1.5"}, NodeName: ptr.To(node),
			Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(ready)}}},
	}
}

// waitFRRRoute waits until prefix is (or is not) in FRR's IPv4 table, with community
// when present.
func waitFRRRoute(t *testing.T, f *netlab.FRR, prefix string, present bool, community string) {
	t.Helper()
	netlab.WaitFor(t, sessionTimeout, 300*time.Millisecond, func() (bool, string) {
		routes, err := f.Routes("ipv4")
		r, ok := routes[prefix]
		if err != nil || ok != present || (present && community != "" && !r.HasCommunity(community)) {
			return false, fmt.Sprintf("FRR: %s present=%v (want %v) community %q: %v %v", prefix, ok, present, community, r, err)
		}
		return true, ""
	})
}

// servicesScenario announces Service addresses: a LoadBalancer IP with its community
// at FRR and BIRD, an externalTrafficPolicy Local one only while this node has a ready
// endpoint, and withdrawal when the Service goes; no session resets.
func (tp *peeringTopology) servicesScenario(t *testing.T) {
	tp.waitAllEstablished(t)
	before := dropped(t, tp.frr, "198.51.100.1")
	create(t, &kbgpv1.BGPAdvertisement{
		ObjectMeta: metav1.ObjectMeta{Name: tp.nodeName + "-services", Labels: map[string]string{"advertise": "e2e"}},
		Spec: kbgpv1.BGPAdvertisementSpec{Advertisements: []kbgpv1.Advertisement{{
			AdvertisementType: kbgpv1.AdvertisementService,
			Service:           &kbgpv1.ServiceAdvertisement{Addresses: []kbgpv1.ServiceAddressType{kbgpv1.ServiceLoadBalancerIP}, LoadBalancerIPPrefixes: []kbgpv1.CIDR{"100.64.0.0/16"}},
			Attributes:        &kbgpv1.BGPAttributes{Communities: &kbgpv1.BGPCommunities{Standard: []kbgpv1.StandardCommunity{"65001:200"}}},
		}}},
	})
	web := loadBalancer(t, "web", webIP, corev1.ServiceExternalTrafficPolicyCluster)
	waitFRRRoute(t, tp.frr, webIP+"/32", true, "65001:200")
	netlab.WaitFor(t, sessionTimeout, 500*time.Millisecond, func() (bool, string) {
		routes, err := tp.bird.Routes("master4")
		_, ok := routes[webIP+"/32"]
		return err == nil && ok, fmt.Sprintf("BIRD routes %v, %v", routes, err)
	})

	// externalTrafficPolicy Local: announced only while a ready endpoint runs here.
	loadBalancer(t, "local", localIP, corev1.ServiceExternalTrafficPolicyLocal)
	slice := endpointSlice("local", tp.nodeName, true)
	create(t, slice)
	waitFRRRoute(t, tp.frr, localIP+"/32", true, "65001:200")
	update(t, slice, func(s *discoveryv1.EndpointSlice) { s.Endpoints = nil }) // scaled to zero
	waitFRRRoute(t, tp.frr, localIP+"/32", false, "")

	if err := server.Client.Delete(context.Background(), web); err != nil {
		t.Fatal(err)
	}
	waitFRRRoute(t, tp.frr, webIP+"/32", false, "")
	if got := dropped(t, tp.frr, "198.51.100.1"); got != before {
		t.Fatalf("Service changes reset the session: connectionsDropped %d -> %d", before, got)
	}
}
