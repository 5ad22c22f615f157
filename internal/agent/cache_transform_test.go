package agent

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	toolscache "k8s.io/client-go/tools/cache"
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

// TestCacheOptionsStripTheCaches: the manager's cache options apply stripService to
// Services and strip managedFields from every other object.
func TestCacheOptionsStripTheCaches(t *testing.T) {
	opts := cacheOptions(fields.OneTermEqualSelector("metadata.name", "n1"))
	var serviceTransform toolscache.TransformFunc
	for obj, by := range opts.ByObject {
		if _, ok := obj.(*corev1.Service); ok {
			serviceTransform = by.Transform
		}
	}
	if serviceTransform == nil || opts.DefaultTransform == nil {
		t.Fatalf("cache options without the transforms: Service %v, default %v", serviceTransform != nil, opts.DefaultTransform != nil)
	}
	svc, err := serviceTransform(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{lastAppliedAnnotation: "{}"}}})
	if err != nil || svc.(*corev1.Service).Annotations[lastAppliedAnnotation] != "" {
		t.Fatalf("the Services' transform kept the last-applied copy: %v", err)
	}
	node, err := opts.DefaultTransform(&corev1.Node{ObjectMeta: metav1.ObjectMeta{ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubelet"}}}})
	if err != nil || node.(*corev1.Node).ManagedFields != nil {
		t.Fatalf("the default transform kept managedFields: %v", err)
	}
}
