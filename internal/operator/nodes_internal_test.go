package operator

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestStripNodeKeepsWhatTheOperatorReads: identity, labels and InternalIPs stay; the
// spec, annotations, managedFields and the rest of the status go.
func TestStripNodeKeepsWhatTheOperatorReads(t *testing.T) {
	in := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "n1", UID: "u1", ResourceVersion: "7", Labels: map[string]string{"rack": "a"},
			Annotations: map[string]string{"big": "x"}, ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubelet"}}},
		Spec: corev1.NodeSpec{PodCIDRs: []string{"10.244.1.0/24"}},
		Status: corev1.NodeStatus{
			Addresses: []corev1.NodeAddress{{Type: corev1.NodeHostName, Address: "n1"}, {Type: corev1.NodeInternalIP, Address: "10.0.0.1"},
				{Type: corev1.NodeExternalIP, Address: "203.0.113.1"}, {Type: corev1.NodeInternalIP, Address: "2001:db8::1"}},
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}},
		},
	}
	out, err := stripNode(in)
	if err != nil {
		t.Fatal(err)
	}
	want := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "n1", UID: "u1", ResourceVersion: "7", Labels: map[string]string{"rack": "a"}},
		Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{
			{Type: corev1.NodeInternalIP, Address: "10.0.0.1"}, {Type: corev1.NodeInternalIP, Address: "2001:db8::1"}}},
	}
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("stripped node (-want +got):\n%s", diff)
	}
}
