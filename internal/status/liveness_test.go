package status

import (
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

func TestLeaseExpiry(t *testing.T) {
	renewed := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		spec   coordinationv1.LeaseSpec
		want   time.Time
		wantOK bool
	}{
		{"renewed", coordinationv1.LeaseSpec{RenewTime: &metav1.MicroTime{Time: renewed}, LeaseDurationSeconds: ptr.To[int32](40)}, renewed.Add(40 * time.Second), true},
		{"never renewed", coordinationv1.LeaseSpec{LeaseDurationSeconds: ptr.To[int32](40)}, time.Time{}, false},
		{"no duration", coordinationv1.LeaseSpec{RenewTime: &metav1.MicroTime{Time: renewed}}, time.Time{}, false},
	}
	for _, tc := range tests {
		got, ok := LeaseExpiry(&coordinationv1.Lease{Spec: tc.spec})
		if !got.Equal(tc.want) || ok != tc.wantOK {
			t.Errorf("%s: LeaseExpiry = %v, %v; want %v, %v", tc.name, got, ok, tc.want, tc.wantOK)
		}
	}
}

func TestNotReportingCondition(t *testing.T) {
	renewed := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	l := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: "kbgp-system", Name: "kbgp-agent-worker-1"},
		Spec:       coordinationv1.LeaseSpec{RenewTime: &metav1.MicroTime{Time: renewed}, LeaseDurationSeconds: ptr.To[int32](40)},
	}
	c := NotReportingCondition(l, 3, renewed.Add(100*time.Second))
	if c.Type != kbgpv1.ConditionReady || c.Status != metav1.ConditionUnknown || c.Reason != kbgpv1.ReasonAgentNotReporting || c.ObservedGeneration != 3 {
		t.Errorf("condition = %+v", c)
	}
	if want := "kbgp-system/kbgp-agent-worker-1 since 2026-11-24T10:00:00Z (expired 1m0s ago)"; !strings.Contains(c.Message, want) {
		t.Errorf("message %q does not contain %q", c.Message, want)
	}
	if !MarkedNotReporting([]metav1.Condition{c}) {
		t.Error("MarkedNotReporting = false for the condition it built")
	}
	if MarkedNotReporting([]metav1.Condition{{Type: kbgpv1.ConditionReady, Status: metav1.ConditionTrue, Reason: kbgpv1.ReasonConfigurationSuccessful}}) {
		t.Error("MarkedNotReporting = true for an agent's own Ready")
	}
}
