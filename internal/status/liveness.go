package status

import (
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// LeaseExpiry is when an agent Lease runs out: its last renewal plus its duration. ok
// is false for a Lease that was never renewed or has no duration.
func LeaseExpiry(l *coordinationv1.Lease) (expiry time.Time, ok bool) {
	if l.Spec.RenewTime == nil || l.Spec.LeaseDurationSeconds == nil {
		return time.Time{}, false
	}
	return l.Spec.RenewTime.Add(time.Duration(*l.Spec.LeaseDurationSeconds) * time.Second), true
}

// MarkedNotReporting reports whether Ready says the agent is not reporting.
func MarkedNotReporting(conditions []metav1.Condition) bool {
	c := meta.FindStatusCondition(conditions, kbgpv1.ConditionReady)
	return c != nil && c.Reason == kbgpv1.ReasonAgentNotReporting
}

// NotReportingCondition is the Ready condition for a node whose agent's Lease expired.
func NotReportingCondition(l *coordinationv1.Lease, generation int64, now time.Time) metav1.Condition {
	msg := fmt.Sprintf("the agent has not renewed its Lease %s/%s", l.Namespace, l.Name)
	if expiry, ok := LeaseExpiry(l); ok {
		msg = fmt.Sprintf("the agent has not renewed its Lease %s/%s since %s (expired %s ago); the status may be stale",
			l.Namespace, l.Name, l.Spec.RenewTime.UTC().Format(time.RFC3339), now.Sub(expiry).Truncate(time.Second))
	}
	return metav1.Condition{
		Type: kbgpv1.ConditionReady, Status: metav1.ConditionUnknown, Reason: kbgpv1.ReasonAgentNotReporting,
		Message: msg, ObservedGeneration: generation,
		// The operator sets it only on a node not yet marked, so it is a transition.
		LastTransitionTime: metav1.NewTime(now.UTC().Truncate(time.Second)),
	}
}
