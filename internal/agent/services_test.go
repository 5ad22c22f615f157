package agent_test

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/bgp/bgpfake"
	"kbgp.io/kbgp/internal/testing/wait"
)

const svcNamespace = "svc-hot-path"

// externalService is a Service whose external IP the test advertises; local makes it
// externalTrafficPolicy Local.
func externalService(name, ip string, local bool) *corev1.Service {
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: svcNamespace, Name: name},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ExternalIPs: []string{ip},
			Ports: []corev1.ServicePort{{Port: 80}}},
	}
	if local {
		svc.Spec.Type = corev1.ServiceTypeLoadBalancer
		svc.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
	}
	return svc
}

// externalIPSetup is a peer config named name whose IPv4 family sends the
// advertisement of the same name: the external IPs inside allowed of the Services that
// selector selects (nil: every Service).
func externalIPSetup(name string, selector *kbgpv1.LabelSelector, allowed kbgpv1.CIDR) (*kbgpv1.BGPPeerConfig, *kbgpv1.BGPAdvertisement) {
	pc := peerConfig(name, 1179, "")
	pc.Spec.Families = []kbgpv1.BGPFamily{{AFI: kbgpv1.AFIIPv4, SAFI: kbgpv1.SAFIUnicast,
		Advertisements: &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"advertise": kbgpv1.LabelValue(name)}}}}
	ad := &kbgpv1.BGPAdvertisement{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"advertise": name}},
		Spec: kbgpv1.BGPAdvertisementSpec{Advertisements: []kbgpv1.Advertisement{{AdvertisementType: kbgpv1.AdvertisementService,
			Selector: selector,
			Service:  &kbgpv1.ServiceAdvertisement{Addresses: []kbgpv1.ServiceAddressType{kbgpv1.ServiceExternalIP}, ExternalIPPrefixes: []kbgpv1.CIDR{allowed}}}}}}
	return pc, ad
}

// inNamespace selects the Services of one namespace.
func inNamespace(ns string) *kbgpv1.LabelSelector {
	return &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"kbgp.io/service-namespace": kbgpv1.LabelValue(ns)}}
}

func hostRoute(ip string) netip.Prefix { return netip.PrefixFrom(netip.MustParseAddr(ip), 32) }

// batchesSettle waits until the speaker advertises want prefixes to addrA, then
// describes the ApplyExports batches made since the last call: one "[...]" per batch,
// holding "+set -removed" prefixes per peer.
func batchesSettle(t *testing.T, r *bgpfake.Router, want int) string {
	t.Helper()
	wait.Eventually(t, 30*time.Second, fmt.Sprintf("%d prefixes advertised", want), func() bool { return len(r.Advertised(addrA)) == want })
	time.Sleep(300 * time.Millisecond) // let any further (wrong) call happen
	var out strings.Builder
	for _, batch := range r.ExportBatches() {
		out.WriteString("[")
		for i, ch := range batch {
			set := make([]netip.Prefix, 0, len(ch.Set))
			for _, p := range ch.Set {
				set = append(set, p.Prefix)
			}
			if i > 0 {
				out.WriteString(" ")
			}
			fmt.Fprintf(&out, "+%v -%v", set, ch.Remove)
		}
		out.WriteString("]")
	}
	return out.String()
}

// TestServiceEventsApplyOnlyTheirDifference: with many Services advertised, one
// Service event reaches the speaker as one batch holding only that Service's
// prefixes — created, moved to another IP, held back by externalTrafficPolicy Local
// until an EndpointSlice puts a ready endpoint on this node, deleted — and never
// resets the session.
func TestServiceEventsApplyOnlyTheirDifference(t *testing.T) {
	const node, existing = "hot-path-node", 200
	ensureNamespace(t)
	ctx := context.Background()
	if err := server.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: svcNamespace}}); err != nil {
		t.Fatal(err)
	}
	pc, ad := externalIPSetup("hot-path", nil, "100.64.0.0/16")
	create(t, testNode(node), pc, ad)
	for i := range existing {
		create(t, externalService(fmt.Sprintf("bulk-%d", i), fmt.Sprintf("100.64.%d.%d", i/250, i%250+1), false))
	}
	create(t, nodeConfig(node, peer("tor", addrA, 65010, "hot-path")))
	routers, _ := startAgent(t, server.Config, node)
	r := speaker(t, routers)
	batchesSettle(t, r, existing)

	web := externalService("web", "100.64.9.1", false)
	create(t, web)
	if got := batchesSettle(t, r, existing+1); got != "[+[100.64.9.1/32] -[]]" {
		t.Errorf("Service created: batches %s; want one setting 100.64.9.1/32 alone", got)
	}

	web.Spec.ExternalIPs = []string{"100.64.9.2"}
	if err := server.Client.Update(ctx, web); err != nil {
		t.Fatal(err)
	}
	wait.Eventually(t, 30*time.Second, "moved to 100.64.9.2", func() bool {
		ads := r.Advertised(addrA)
		return len(ads) == existing+1 && !containsPrefix(ads, hostRoute("100.64.9.1")) && containsPrefix(ads, hostRoute("100.64.9.2"))
	})
	if got := batchesSettle(t, r, existing+1); got != "[+[100.64.9.2/32] -[100.64.9.1/32]]" {
		t.Errorf("Service IP changed: batches %s; want one setting the new IP and removing the old one, alone", got)
	}

	local := externalService("local", "100.64.9.3", true)
	create(t, local)
	if got := batchesSettle(t, r, existing+1); got != "" {
		t.Errorf("eTP=Local without endpoints: batches %s; want none", got)
	}
	create(t, &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Namespace: svcNamespace, Name: "local-1", Labels: map[string]string{discoveryv1.LabelServiceName: "local"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.244.1.7"}, NodeName: ptr.To(node),
			Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}}},
	})
	if got := batchesSettle(t, r, existing+2); got != "[+[100.64.9.3/32] -[]]" {
		t.Errorf("ready endpoint on this node: batches %s, want one setting 100.64.9.3/32 alone", got)
	}

	if err := server.Client.Delete(ctx, web); err != nil {
		t.Fatal(err)
	}
	if got := batchesSettle(t, r, existing+1); got != "[+[] -[100.64.9.2/32]]" {
		t.Errorf("Service deleted: batches %s; want one removing 100.64.9.2/32 alone", got)
	}
	if got := r.Sessions(addrA); got != 1 {
		t.Errorf("Service events reset the session: %d sessions", got)
	}
}

func containsPrefix(paths []bgp.Path, p netip.Prefix) bool {
	for _, x := range paths {
		if x.Prefix == p {
			return true
		}
	}
	return false
}
