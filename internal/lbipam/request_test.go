package lbipam

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

func TestParseRequested(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		err  string
	}{
		{in: "203.0.113.7", want: []string{"203.0.113.7"}},
		{in: " 203.0.113.7 , 2001:db8::7", want: []string{"203.0.113.7", "2001:db8::7"}},
		{in: "::ffff:203.0.113.7", want: []string{"203.0.113.7"}},
		{in: "203.0.113.7,203.0.113.8", err: "more than one IPv4 address"},
		{in: "203.0.113.0/24", err: "is not an IP address"},
		{in: "fe80::1%eth0", err: "is not an IP address"},
		{in: " , ", err: "no address"},
	} {
		got, err := ParseRequested(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: err %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, addrs(tc.want...)) {
			t.Errorf("%q: got %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func FuzzParseRequested(f *testing.F) {
	for _, s := range []string{"203.0.113.7", "203.0.113.7,2001:db8::7", "::ffff:1.2.3.4", ",,", "fe80::1%x", "1.2.3.4/32"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got, err := ParseRequested(raw)
		if err != nil {
			return
		}
		if len(got) == 0 || len(got) > 2 {
			t.Fatalf("%q: %d addresses", raw, len(got))
		}
		for _, a := range got {
			if !a.IsValid() || a.Is4In6() || a.Zone() != "" {
				t.Fatalf("%q: address %v", raw, a)
			}
		}
		if len(got) == 2 && got[0].Is4() == got[1].Is4() {
			t.Fatalf("%q: two addresses of one family", raw)
		}
	})
}

func TestNewRequest(t *testing.T) {
	svc := func(mut func(*corev1.Service)) *corev1.Service {
		s := &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", Labels: map[string]string{"kbgp.io/service-name": "forged", "tier": "front"}},
			Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, IPFamilies: []corev1.IPFamily{v4},
				Ports: []corev1.ServicePort{{Port: 80}, {Port: 53, Protocol: corev1.ProtocolUDP}}},
		}
		mut(s)
		return s
	}
	dual := func(p corev1.IPFamilyPolicy) func(*corev1.Service) {
		return func(s *corev1.Service) {
			s.Spec.IPFamilies = []corev1.IPFamily{v6, v4}
			s.Spec.IPFamilyPolicy = &p
		}
	}
	for _, tc := range []struct {
		name               string
		svc                *corev1.Service
		required, optional []corev1.IPFamily
		requested          []string
		err                string
	}{
		{name: "single stack", svc: svc(func(*corev1.Service) {}), required: []corev1.IPFamily{v4}},
		{name: "require dual", svc: svc(dual(corev1.IPFamilyPolicyRequireDualStack)), required: []corev1.IPFamily{v6, v4}},
		{name: "prefer dual", svc: svc(dual(corev1.IPFamilyPolicyPreferDualStack)), required: []corev1.IPFamily{v6}, optional: []corev1.IPFamily{v4}},
		{name: "spec.loadBalancerIP", svc: svc(func(s *corev1.Service) { s.Spec.LoadBalancerIP = "203.0.113.4" }), required: []corev1.IPFamily{v4}, requested: []string{"203.0.113.4"}},
		{name: "annotation wins", svc: svc(func(s *corev1.Service) {
			s.Spec.LoadBalancerIP = "203.0.113.4"
			s.Annotations = map[string]string{kbgpv1.LoadBalancerIPsAnnotation: "203.0.113.5"}
		}), required: []corev1.IPFamily{v4}, requested: []string{"203.0.113.5"}},
		{name: "bad annotation", svc: svc(func(s *corev1.Service) {
			s.Annotations = map[string]string{kbgpv1.LoadBalancerIPsAnnotation: "web"}
		}), err: `annotation kbgp.io/load-balancer-ips: "web" is not an IP address`},
	} {
		r, err := NewRequest(tc.svc)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%s: err %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || !slices.Equal(r.Required, tc.required) || !slices.Equal(r.Optional, tc.optional) || !slices.Equal(r.Requested, addrs(tc.requested...)) {
			t.Errorf("%s: got %+v, %v", tc.name, r, err)
		}
		if r.Labels["kbgp.io/service-name"] != "web" || r.Labels["tier"] != "front" {
			t.Errorf("%s: labels %v: the pseudo-labels must win", tc.name, r.Labels)
		}
		if !slices.Equal(r.Ports, []Port{{corev1.ProtocolTCP, 80}, {corev1.ProtocolUDP, 53}}) {
			t.Errorf("%s: ports %v", tc.name, r.Ports)
		}
	}
}

func TestEligible(t *testing.T) {
	lb := func(class *string) *corev1.Service {
		return &corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, LoadBalancerClass: class}}
	}
	deleting := lb(nil)
	deleting.DeletionTimestamp = &metav1.Time{}
	for _, tc := range []struct {
		svc  *corev1.Service
		want bool
	}{
		{lb(nil), true},
		{lb(ptr.To(kbgpv1.LoadBalancerClass)), true},
		{lb(ptr.To("example.com/other")), false},
		{&corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP}}, false},
		{deleting, false},
	} {
		if got := Eligible(tc.svc); got != tc.want {
			t.Errorf("%+v: eligible %v, want %v", tc.svc.Spec, got, tc.want)
		}
	}
}
