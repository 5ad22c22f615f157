package kubectlbgp

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// explainServiceObjects adds to the routes objects one Service for each reason a node
// announces nothing.
func explainServiceObjects() []client.Object {
	lb := func(name, ip string, mut func(*corev1.Service)) *corev1.Service {
		s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name}, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer}}
		if ip != "" {
			s.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: ip}}
		}
		if mut != nil {
			mut(s)
		}
		return s
	}
	return append(routesObjects(),
		lb("outside", "198.51.100.9", nil),
		lb("other-class", "100.64.1.9", func(s *corev1.Service) { s.Spec.LoadBalancerClass = ptr("example.com/lb") }),
		lb("pending", "", nil),
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "internal"},
			Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIP: "10.96.7.7", ClusterIPs: []string{"10.96.7.7"}}},
	)
}

func TestExplainService(t *testing.T) {
	tests := []struct {
		service string
		want    []string
	}{
		{"shop/web", []string{
			"Service: shop/web",
			"LoadBalancerIP: 100.64.1.1",
			"Node worker-r:",
			"announces 100.64.1.1/32 to instance 65001 peer rr: communities 65001:300, large communities -, local preference 250",
			"announces 100.64.1.1/32 to instance 65001 peer tor-a: communities no-export, large communities -, local preference -",
		}},
		{"shop/local", []string{"announces 100.64.1.2/32 to instance 65001 peer tor-a"}},
		{"shop/elsewhere", []string{"announces nothing: its traffic policy is Local and it has no ready endpoint on this node"}},
		{"shop/outside", []string{"announces nothing: refused: LoadBalancerIP 198.51.100.9 is in no LoadBalancerIPPool serving the Service and outside the loadBalancerIPPrefixes"}},
		{"shop/other-class", []string{"announces nothing: its loadBalancerClass example.com/lb is another controller's, and it has no cluster or external IP"}},
		{"shop/pending", []string{"announces nothing: it has no address yet"}},
		{"shop/internal", []string{"announces nothing: no BGPAdvertisement that this node's peers select matches the Service's labels (kbgp.io/service-name=internal,kbgp.io/service-namespace=shop) with an address kind it has"}},
		{"shop/missing", []string{"Service: shop/missing", "not found"}},
	}
	for _, tc := range tests {
		t.Run(tc.service, func(t *testing.T) {
			out, _, err := run(t, explainServiceObjects(), "explain", "service", tc.service, "--computed")
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
	if _, _, err := run(t, explainServiceObjects(), "explain", "service", "web"); err == nil || !strings.Contains(err.Error(), "NAMESPACE/NAME") {
		t.Errorf("a name without namespace: %v", err)
	}
	if _, _, err := run(t, explainServiceObjects(), "explain", "pods", "shop/web"); err == nil {
		t.Error("explain with two arguments other than service was accepted")
	}
}
