package agent

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestStripService: the cached Service keeps its addresses and its own annotations,
// and loses managedFields and kubectl's last-applied copy of itself.
func TestStripService(t *testing.T) {
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{
			Name: "web", Namespace: "default",
			Annotations:   map[string]string{lastAppliedAnnotation: `{"spec":{"externalIPs":["10.128.0.1"]}}`, "kbgp.io/keep": "yes"},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}},
		},
		Spec: corev1.ServiceSpec{ExternalIPs: []string{"10.128.0.1"}},
	}
	out, err := stripService(svc)
	if err != nil {
		t.Fatal(err)
	}
	got := out.(*corev1.Service)
	if got.ManagedFields != nil || got.Annotations[lastAppliedAnnotation] != "" {
		t.Fatalf("kept managedFields %v or the last-applied copy %q", got.ManagedFields, got.Annotations[lastAppliedAnnotation])
	}
	if got.Annotations["kbgp.io/keep"] != "yes" || len(got.Spec.ExternalIPs) != 1 {
		t.Fatalf("lost what the agent reads: %+v", got)
	}
}
