package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

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

// allowedOnlyScenario: nobody announces what they do not own. A Service in another
// namespace that labels itself with the pseudo-labels of an advertisement scoped to
// "default" is not announced, while the Service that really lives there is (control);
// an external IP outside the advertisement's externalIPPrefixes is not announced and
// the node's status names the Service, while one inside is announced (control).
func (tp *peeringTopology) allowedOnlyScenario(t *testing.T) {
	tp.waitAllEstablished(t)
	const (
		ownIP, forgedIP     = "100.64.12.1", "100.64.12.2"
		insideIP, outsideIP = "100.64.13.1", "100.64.99.1"
	)
	if err := server.EnsureNamespace(context.Background(), "e2e-evil"); err != nil {
		t.Fatal(err)
	}
	create(t, &kbgpv1.BGPAdvertisement{
		ObjectMeta: metav1.ObjectMeta{Name: tp.nodeName + "-scoped", Labels: map[string]string{"advertise": "e2e"}},
		Spec: kbgpv1.BGPAdvertisementSpec{Advertisements: []kbgpv1.Advertisement{{
			AdvertisementType: kbgpv1.AdvertisementService,
			Selector:          &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"kbgp.io/service-namespace": "default", "kbgp.io/service-name": "payments"}},
			Service: &kbgpv1.ServiceAdvertisement{Addresses: []kbgpv1.ServiceAddressType{kbgpv1.ServiceExternalIP},
				ExternalIPPrefixes: []kbgpv1.CIDR{"100.64.12.0/24"}},
		}, {
			AdvertisementType: kbgpv1.AdvertisementService,
			Selector:          &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"range-test": "yes"}},
			Service: &kbgpv1.ServiceAdvertisement{Addresses: []kbgpv1.ServiceAddressType{kbgpv1.ServiceExternalIP},
				ExternalIPPrefixes: []kbgpv1.CIDR{"100.64.13.0/24"}},
		}}},
	})
	external := func(namespace, name, ip string, labels map[string]string) *corev1.Service {
		svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: labels},
			Spec: corev1.ServiceSpec{ExternalIPs: []string{ip}, Ports: []corev1.ServicePort{{Port: 80}}}}
		create(t, svc)
		return svc
	}
	external("e2e-evil", "payments", forgedIP, map[string]string{"kbgp.io/service-namespace": "default", "kbgp.io/service-name": "payments"})
	external("default", "payments", ownIP, nil)
	waitFRRRoute(t, tp.frr, ownIP+"/32", true, "")
	waitFRRRoute(t, tp.frr, forgedIP+"/32", false, "")

	external("default", "inside", insideIP, map[string]string{"range-test": "yes"})
	outside := external("default", "outside", outsideIP, map[string]string{"range-test": "yes"})
	waitFRRRoute(t, tp.frr, insideIP+"/32", true, "")
	netlab.WaitFor(t, sessionTimeout, 300*time.Millisecond, func() (bool, string) {
		nc := &kbgpv1.BGPNodeConfig{}
		if err := server.Client.Get(context.Background(), client.ObjectKey{Name: tp.nodeName}, nc); err != nil {
			return false, err.Error()
		}
		for _, f := range nc.Status.FailedResources {
			if f.Kind == "Service" && f.Name == "default/outside" && strings.Contains(f.Message, "ExternalIP "+outsideIP+" is outside the externalIPPrefixes") {
				return true, ""
			}
		}
		return false, fmt.Sprintf("failedResources %v", nc.Status.FailedResources)
	})
	waitFRRRoute(t, tp.frr, outsideIP+"/32", false, "")
	if err := server.Client.Delete(context.Background(), outside); err != nil {
		t.Fatal(err)
	}
}
