package kubectlbgp

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

func TestPoolsCommand(t *testing.T) {
	public := &kbgpv1.LoadBalancerIPPool{
		ObjectMeta: metav1.ObjectMeta{Name: "public"},
		Spec:       kbgpv1.LoadBalancerIPPoolSpec{Blocks: []kbgpv1.IPBlock{{CIDR: "203.0.113.0/30"}, {CIDR: "2001:db8:1::/120"}}},
		Status: kbgpv1.LoadBalancerIPPoolStatus{
			Conditions: []metav1.Condition{{Type: kbgpv1.PoolExhausted, Status: metav1.ConditionTrue, Reason: "NoAddressLeft"},
				{Type: kbgpv1.PoolOverlapping, Status: metav1.ConditionFalse, Reason: "NoOverlap"}},
			Addresses: &kbgpv1.PoolAddresses{Total: 260, Used: 5, IPv4: &kbgpv1.AddressCount{Total: 4, Used: 4}, IPv6: &kbgpv1.AddressCount{Total: 256, Used: 1}},
		},
	}
	fresh := &kbgpv1.LoadBalancerIPPool{
		ObjectMeta: metav1.ObjectMeta{Name: "internal"},
		Spec:       kbgpv1.LoadBalancerIPPoolSpec{Disabled: true, Blocks: []kbgpv1.IPBlock{{Start: "198.51.100.10", Stop: "198.51.100.20"}}},
	}
	out, _, err := run(t, []client.Object{public, fresh}, "pools")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"POOL       IPV4   IPV6    EXHAUSTED   OVERLAPPING   DISABLED   BLOCKS",
		"internal   -      -       -           -             true       198.51.100.10-198.51.100.20",
		"public     4/4    1/256   True        False         false      203.0.113.0/30,2001:db8:1::/120",
	}, "\n") + "\n"
	if out != want {
		t.Errorf("kubectl bgp pools:\n%s\nwant:\n%s", out, want)
	}

	_, stderr, err := run(t, nil, "pools")
	if err != nil || !strings.Contains(stderr, "No LoadBalancerIPPools found") {
		t.Errorf("no pools: %q, %v", stderr, err)
	}
}
