package kubectlbgp

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// now is the fixed clock of every test, so ages and timestamps are reproducible.
var now = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func ago(d time.Duration) *metav1.Time {
	t := metav1.NewTime(now.Add(-d))
	return &t
}

func ptr[T any](v T) *T { return &v }

func sessionStatus(name, addr, vrf string, state kbgpv1.PeeringState, up time.Duration) kbgpv1.BGPNodePeerStatus {
	p := kbgpv1.BGPNodePeerStatus{Name: name, PeerAddress: addr, VRF: vrf, PeerASN: 65002, PeeringState: state}
	if up > 0 {
		p.EstablishedTime = ago(up)
		p.RoutesReceived, p.RoutesAdvertised = 3, 12
		p.Timers = &kbgpv1.BGPNegotiatedTimers{AppliedHoldTimeSeconds: 90, AppliedKeepaliveSeconds: 30}
	}
	return p
}

func nodeConfigWithStatus(name string, st kbgpv1.BGPNodeConfigStatus) kbgpv1.BGPNodeConfig {
	return kbgpv1.BGPNodeConfig{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: st}
}

func condition(typ string, status metav1.ConditionStatus, reason, msg string) metav1.Condition {
	return metav1.Condition{Type: typ, Status: status, Reason: reason, Message: msg}
}
