package lbipam

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// maxNamed bounds the Services a condition message names.
const maxNamed = 10

// PoolFacts is what a pool's status is computed from.
type PoolFacts struct {
	Stats PoolStats
	// Invalid explains the blocks left out; nil when every block is valid.
	Invalid error
	// OverlapsWith names the other pools sharing an address with this one.
	OverlapsWith []string
}

// PoolStatus computes a pool's status from its facts, keeping each condition's
// transition time while its status stays.
func PoolStatus(current kbgpv1.LoadBalancerIPPoolStatus, generation int64, f PoolFacts, now metav1.Time) kbgpv1.LoadBalancerIPPoolStatus {
	out := kbgpv1.LoadBalancerIPPoolStatus{Conditions: append([]metav1.Condition(nil), current.Conditions...)}
	set := func(typ string, status bool, reason, msg string) {
		s := metav1.ConditionFalse
		if status {
			s = metav1.ConditionTrue
		}
		meta.SetStatusCondition(&out.Conditions, metav1.Condition{Type: typ, Status: s, Reason: reason, Message: msg, ObservedGeneration: generation, LastTransitionTime: now})
	}
	if f.Invalid != nil {
		set(kbgpv1.ConditionReady, false, kbgpv1.ReasonInvalidBlocks, f.Invalid.Error()+"; the other blocks are served")
	} else {
		set(kbgpv1.ConditionReady, true, kbgpv1.ReasonBlocksValid, "every block is served")
	}
	if n := len(f.Stats.Exhausted); n > 0 {
		set(kbgpv1.PoolExhausted, true, kbgpv1.ReasonNoAddressLeft, fmt.Sprintf("%d Service(s) wait for an address: %s", n, named(f.Stats.Exhausted)))
	} else {
		set(kbgpv1.PoolExhausted, false, kbgpv1.ReasonAddressesLeft, "no Service waits for an address of this pool")
	}
	if len(f.OverlapsWith) > 0 {
		set(kbgpv1.PoolOverlapping, true, kbgpv1.ReasonOverlaps, "shares addresses with LoadBalancerIPPool "+named(f.OverlapsWith)+"; a shared address is handed out by the first pool by name")
	} else {
		set(kbgpv1.PoolOverlapping, false, kbgpv1.ReasonNoOverlap, "no address lies in another pool")
	}
	st := f.Stats
	out.Addresses = &kbgpv1.PoolAddresses{
		Total: saturatingAdd(st.IPv4.Total, st.IPv6.Total), Used: st.IPv4.Used + st.IPv6.Used,
	}
	if st.IPv4.Total > 0 {
		out.Addresses.IPv4 = &kbgpv1.AddressCount{Total: st.IPv4.Total, Used: st.IPv4.Used}
	}
	if st.IPv6.Total > 0 {
		out.Addresses.IPv6 = &kbgpv1.AddressCount{Total: st.IPv6.Total, Used: st.IPv6.Used}
	}
	return out
}

func named(names []string) string {
	if len(names) > maxNamed {
		return strings.Join(names[:maxNamed], ", ") + fmt.Sprintf(" and %d more", len(names)-maxNamed)
	}
	return strings.Join(names, ", ")
}

func saturatingAdd(a, b int64) int64 {
	if a > 1<<63-1-b {
		return 1<<63 - 1
	}
	return a + b
}
