package e2e

import (
	"context"
	"fmt"
	"slices"
	"time"

	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/test/e2e/netlab"
)

// aggregationScenario: with aggregationLengthIPv4 24, two externalTrafficPolicy
// Cluster Services of one /24 reach FRR as that /24 and not as /32s, while an
// externalTrafficPolicy Local one in the same /24 keeps its /32 beside it; when the
// Cluster Services go, the aggregate is withdrawn and the /32 stays.
func (tp *peeringTopology) aggregationScenario(t *testing.T) {
	tp.waitAllEstablished(t)
	const (
		aggregate          = "100.64.20.0/24"
		clusterA, clusterB = "100.64.20.1", "100.64.20.2"
		localHere          = "100.64.20.3"
	)
	before := dropped(t, tp.frr, "198.51.100.1")
	create(t, &kbgpv1.BGPAdvertisement{
		ObjectMeta: metav1.ObjectMeta{Name: tp.nodeName + "-aggregated", Labels: map[string]string{"advertise": "e2e"}},
		Spec: kbgpv1.BGPAdvertisementSpec{Advertisements: []kbgpv1.Advertisement{{
			AdvertisementType: kbgpv1.AdvertisementService,
			Selector:          &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"aggregate-test": "yes"}},
			Service: &kbgpv1.ServiceAdvertisement{Addresses: []kbgpv1.ServiceAddressType{kbgpv1.ServiceLoadBalancerIP},
				LoadBalancerIPPrefixes: []kbgpv1.CIDR{aggregate}, AggregationLengthIPv4: ptr.To[int32](24)},
		}}},
	})
	labelled := func(svc *corev1.Service) {
		update(t, svc, func(s *corev1.Service) { s.Labels = map[string]string{"aggregate-test": "yes"} })
	}
	a := loadBalancer(t, "agg-a", clusterA, corev1.ServiceExternalTrafficPolicyCluster)
	b := loadBalancer(t, "agg-b", clusterB, corev1.ServiceExternalTrafficPolicyCluster)
	local := loadBalancer(t, "agg-local", localHere, corev1.ServiceExternalTrafficPolicyLocal)
	create(t, endpointSlice("agg-local", tp.nodeName, true))
	for _, svc := range []*corev1.Service{a, b, local} {
		labelled(svc)
	}

	// exactly waits until FRR's IPv4 routes inside the /24 are want.
	exactly := func(want ...string) {
		t.Helper()
		netlab.WaitFor(t, sessionTimeout, 300*time.Millisecond, func() (bool, string) {
			routes, err := tp.frr.Routes("ipv4")
			if err != nil {
				return false, err.Error()
			}
			var got []string
			for p := range routes {
				if p == aggregate || slices.Contains([]string{clusterA, clusterB, localHere}, p[:len(p)-3]) {
					got = append(got, p)
				}
			}
			slices.Sort(got)
			slices.Sort(want)
			return slices.Equal(got, want), fmt.Sprintf("FRR holds %v of the aggregate's routes, want %v", got, want)
		})
	}
	exactly(aggregate, localHere+"/32")
	// The aggregate stays while one Cluster Service is left in it.
	if err := server.Client.Delete(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	exactly(aggregate, localHere+"/32")
	if err := server.Client.Delete(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	exactly(localHere + "/32")
	if got := dropped(t, tp.frr, "198.51.100.1"); got != before {
		t.Fatalf("aggregation changes reset the session: connectionsDropped %d -> %d", before, got)
	}
}
