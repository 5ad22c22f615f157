package operator_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/operator"
)

// createNamespace makes a namespace for one test's Services.
func createNamespace(t *testing.T, name string) {
	t.Helper()
	createObject(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})
}

// lbPool serves the Services of one namespace (by the pseudo-label), so tests that
// share the API server do not take each other's addresses.
func lbPool(name, ns string, blocks ...kbgpv1.IPBlock) *kbgpv1.LoadBalancerIPPool {
	return &kbgpv1.LoadBalancerIPPool{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: kbgpv1.LoadBalancerIPPoolSpec{
		Blocks:          blocks,
		ServiceSelector: &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"kbgp.io/service-namespace": kbgpv1.LabelValue(ns)}},
	}}
}

// lbService is a LoadBalancer Service on port 80/TCP, changed by mut.
func lbService(ns, name string, mut func(*corev1.Service)) *corev1.Service {
	s := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: []corev1.ServicePort{{Port: 80}}},
	}
	if mut != nil {
		mut(s)
	}
	return s
}

// ingressOf waits until the Service's load-balancer addresses are want (none: pending).
func ingressOf(t *testing.T, ns, name string, want ...string) {
	t.Helper()
	eventually(t, 20*time.Second, fmt.Sprintf("Service %s/%s at %v", ns, name, want), func() error {
		got, err := ingress(ns, name)
		if err != nil {
			return err
		}
		if !slices.Equal(got, want) {
			return fmt.Errorf("ingress %v", got)
		}
		return nil
	})
}

func ingress(ns, name string) ([]string, error) {
	var svc corev1.Service
	if err := server.Client.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: name}, &svc); err != nil {
		return nil, err
	}
	var out []string
	for _, ing := range svc.Status.LoadBalancer.Ingress {
		out = append(out, ing.IP)
	}
	return out, nil
}

// serviceEvent waits for an event of reason on the Service whose message contains msg.
func serviceEvent(t *testing.T, ns, name, reason, msg string) {
	t.Helper()
	eventually(t, 20*time.Second, fmt.Sprintf("%s event on %s/%s", reason, ns, name), func() error {
		var list corev1.EventList
		if err := server.Client.List(context.Background(), &list, client.InNamespace(ns)); err != nil {
			return err
		}
		var seen []string
		for _, e := range list.Items {
			if e.InvolvedObject.Name == name && e.InvolvedObject.Kind == "Service" {
				if e.Reason == reason && strings.Contains(e.Message, msg) {
					return nil
				}
				seen = append(seen, e.Reason+": "+e.Message)
			}
		}
		return fmt.Errorf("events %q", seen)
	})
}

// poolStatus waits until the pool's status satisfies check.
func poolStatus(t *testing.T, name string, check func(kbgpv1.LoadBalancerIPPoolStatus) error) {
	t.Helper()
	eventually(t, 20*time.Second, "status of pool "+name, func() error {
		var p kbgpv1.LoadBalancerIPPool
		if err := server.Client.Get(context.Background(), types.NamespacedName{Name: name}, &p); err != nil {
			return err
		}
		return check(p.Status)
	})
}

func exhausted(want metav1.ConditionStatus, used, total int64) func(kbgpv1.LoadBalancerIPPoolStatus) error {
	return func(s kbgpv1.LoadBalancerIPPoolStatus) error {
		c := meta.FindStatusCondition(s.Conditions, kbgpv1.PoolExhausted)
		if c == nil || c.Status != want || s.Addresses == nil || s.Addresses.Used != used || s.Addresses.Total != total {
			return fmt.Errorf("status %s", mustJSON(s))
		}
		return nil
	}
}

func update(t *testing.T, obj client.Object, mut func()) {
	t.Helper()
	eventually(t, 10*time.Second, "update "+obj.GetName(), func() error {
		if err := server.Client.Get(context.Background(), client.ObjectKeyFromObject(obj), obj); err != nil {
			return err
		}
		mut()
		return server.Client.Update(context.Background(), obj)
	})
}

func TestLoadBalancerIPPoolAssignsSharesAndReleases(t *testing.T) {
	startOperator(t, operator.Options{})
	ns := "lbipam"
	createNamespace(t, ns)
	createObject(t, lbPool("lbipam-a", ns, kbgpv1.IPBlock{CIDR: "203.0.113.0/30"}, kbgpv1.IPBlock{Start: "2001:db8:5::10", Stop: "2001:db8:5::11"}))

	createObject(t, lbService(ns, "first", nil))
	ingressOf(t, ns, "first", "203.0.113.0")
	serviceEvent(t, ns, "first", operator.EventIPAllocated, "assigned 203.0.113.0")

	dual := lbService(ns, "dual", func(s *corev1.Service) {
		s.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv6Protocol, corev1.IPv4Protocol}
		s.Spec.IPFamilyPolicy = ptr.To(corev1.IPFamilyPolicyRequireDualStack)
	})
	createObject(t, dual)
	ingressOf(t, ns, "dual", "2001:db8:5::10", "203.0.113.1")

	requested := lbService(ns, "requested", func(s *corev1.Service) {
		s.Annotations = map[string]string{kbgpv1.LoadBalancerIPsAnnotation: "203.0.113.3"}
	})
	createObject(t, requested)
	ingressOf(t, ns, "requested", "203.0.113.3")

	taken := lbService(ns, "taken", func(s *corev1.Service) { s.Spec.LoadBalancerIP = "203.0.113.3" })
	createObject(t, taken)
	serviceEvent(t, ns, "taken", operator.EventAllocationFailed, "address 203.0.113.3 is held by lbipam/requested")
	ingressOf(t, ns, "taken")

	outside := lbService(ns, "outside", func(s *corev1.Service) {
		s.Annotations = map[string]string{kbgpv1.LoadBalancerIPsAnnotation: "198.51.100.77"}
	})
	createObject(t, outside)
	serviceEvent(t, ns, "outside", operator.EventAllocationFailed, "requested address 198.51.100.77 lies in no LoadBalancerIPPool that serves this Service")

	// Sharing: same key, other ports → the same address; a clashing port → another.
	for _, s := range []struct {
		name string
		port int32
		udp  bool
	}{{"share-web", 443, false}, {"share-dns", 53, true}} {
		createObject(t, lbService(ns, s.name, func(svc *corev1.Service) {
			svc.Annotations = map[string]string{kbgpv1.SharingKeyAnnotation: "front"}
			svc.Spec.Ports = []corev1.ServicePort{{Port: s.port}}
			if s.udp {
				svc.Spec.Ports[0].Protocol = corev1.ProtocolUDP
			}
		}))
	}
	ingressOf(t, ns, "share-web", "203.0.113.2")
	ingressOf(t, ns, "share-dns", "203.0.113.2")

	// The IPv4 block is used up: one more Service waits and the pool says so.
	waiting := lbService(ns, "waiting", nil)
	createObject(t, waiting)
	serviceEvent(t, ns, "waiting", operator.EventAllocationFailed, "no IPv4 address left in LoadBalancerIPPool lbipam-a")
	poolStatus(t, "lbipam-a", exhausted(metav1.ConditionTrue, 5, 6))

	// A Service that stops being a LoadBalancer gives its address back, and the
	// waiting one gets it.
	first := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "first"}}
	update(t, first, func() { first.Spec.Type = corev1.ServiceTypeClusterIP })
	ingressOf(t, ns, "first")
	ingressOf(t, ns, "waiting", "203.0.113.0")
	poolStatus(t, "lbipam-a", exhausted(metav1.ConditionFalse, 5, 6))

	// Deleting a Service releases its address.
	deleteObject(t, requested)
	ingressOf(t, ns, "taken", "203.0.113.3")
}

func TestLoadBalancerIPPoolSelectorsOverlapAndDisabled(t *testing.T) {
	startOperator(t, operator.Options{})
	ns := "lbipam-sel"
	createNamespace(t, ns)
	public := lbPool("lbsel-public", ns, kbgpv1.IPBlock{CIDR: "198.51.100.64/30"})
	public.Spec.ServiceSelector.MatchLabels["expose"] = "public"
	createObject(t, public)
	overlapping := lbPool("lbsel-wide", ns, kbgpv1.IPBlock{CIDR: "198.51.100.64/29"})
	overlapping.Spec.ServiceSelector.MatchLabels["expose"] = "wide"
	createObject(t, overlapping)
	poolStatus(t, "lbsel-public", func(s kbgpv1.LoadBalancerIPPoolStatus) error {
		c := meta.FindStatusCondition(s.Conditions, kbgpv1.PoolOverlapping)
		if c == nil || c.Status != metav1.ConditionTrue || !strings.Contains(c.Message, "lbsel-wide") {
			return fmt.Errorf("conditions %s", mustJSON(s.Conditions))
		}
		return nil
	})

	createObject(t, lbService(ns, "web", func(s *corev1.Service) { s.Labels = map[string]string{"expose": "public"} }))
	ingressOf(t, ns, "web", "198.51.100.64")
	// A Service no pool selects waits.
	createObject(t, lbService(ns, "plain", nil))
	serviceEvent(t, ns, "plain", operator.EventAllocationFailed, "no enabled LoadBalancerIPPool with IPv4 addresses serves this Service")
	// Another class is left alone.
	createObject(t, lbService(ns, "other-class", func(s *corev1.Service) {
		s.Labels = map[string]string{"expose": "public"}
		s.Spec.LoadBalancerClass = ptr.To("example.com/other")
	}))

	// Disabling keeps what was given and gives nothing new.
	update(t, public, func() { public.Spec.Disabled = true })
	createObject(t, lbService(ns, "late", func(s *corev1.Service) { s.Labels = map[string]string{"expose": "public"} }))
	serviceEvent(t, ns, "late", operator.EventAllocationFailed, "no enabled LoadBalancerIPPool")
	ingressOf(t, ns, "web", "198.51.100.64")
	ingressOf(t, ns, "other-class")

	// Deleting the pool takes its addresses back.
	deleteObject(t, public)
	ingressOf(t, ns, "web")
}

// TestSharingKeyStaysInItsNamespaceAndTheHolderKeepsItsAddress is the review's first
// claim against the real controller: a Service of another namespace with the holder's
// sharing key (its pool holds the same addresses) gets another address, and when the
// holder changes its port to the one a joiner uses, the joiner moves, not the holder.
func TestSharingKeyStaysInItsNamespaceAndTheHolderKeepsItsAddress(t *testing.T) {
	startOperator(t, operator.Options{})
	nsA, nsB := "lbshare-a", "lbshare-b"
	createNamespace(t, nsA)
	createNamespace(t, nsB)
	block := kbgpv1.IPBlock{CIDR: "198.51.100.96/30"}
	createObject(t, lbPool("lbshare-a", nsA, block))
	createObject(t, lbPool("lbshare-b", nsB, block))
	keyed := func(port int32, proto corev1.Protocol) func(*corev1.Service) {
		return func(s *corev1.Service) {
			s.Annotations = map[string]string{kbgpv1.SharingKeyAnnotation: "front"}
			s.Spec.Ports = []corev1.ServicePort{{Port: port, Protocol: proto}}
		}
	}
	holder := lbService(nsA, "holder", keyed(80, corev1.ProtocolTCP))
	createObject(t, holder)
	ingressOf(t, nsA, "holder", "198.51.100.96")
	createObject(t, lbService(nsA, "joiner", keyed(53, corev1.ProtocolUDP)))
	ingressOf(t, nsA, "joiner", "198.51.100.96")
	createObject(t, lbService(nsB, "squat", keyed(443, corev1.ProtocolTCP)))
	ingressOf(t, nsB, "squat", "198.51.100.97")

	update(t, holder, func() { holder.Spec.Ports = []corev1.ServicePort{{Port: 53, Protocol: corev1.ProtocolUDP}} })
	ingressOf(t, nsA, "joiner", "198.51.100.98")
	ingressOf(t, nsA, "holder", "198.51.100.96")
}
