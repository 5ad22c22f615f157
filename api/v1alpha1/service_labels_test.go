package v1alpha1

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestReservedLabel(t *testing.T) {
	for key, want := range map[string]bool{
		"kbgp.io/service-name": true, "kbgp.io/team": true, "lb.kbgp.io/pool": true,
		"notkbgp.io/team": false, "kbgp.io": false, "app": false, "example.com/kbgp.io": false,
	} {
		if got := reservedLabel(key); got != want {
			t.Errorf("reservedLabel(%q) = %v, want %v", key, got, want)
		}
	}
}

// TestServiceLabelsPseudoLabelsWin: a Service cannot claim another name or namespace
// through its own labels.
func TestServiceLabelsPseudoLabelsWin(t *testing.T) {
	got := ServiceLabels(metav1.ObjectMeta{Namespace: "guest", Name: "web", Labels: map[string]string{
		LabelServiceNamespace: "shop", LabelServiceName: "checkout", "kbgp.io/team": "payments", "app": "web",
	}})
	want := map[string]string{LabelServiceNamespace: "guest", LabelServiceName: "web", "app": "web"}
	if len(got) != len(want) {
		t.Fatalf("ServiceLabels = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("ServiceLabels[%q] = %q, want %q", k, got[k], v)
		}
	}
}
