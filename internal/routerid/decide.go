package routerid

import (
	"errors"
	"fmt"
	"net/netip"
	"time"

	corev1 "k8s.io/api/core/v1"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// DecideInput is what Decide reads: the node config's instances, the Node, and the
// router IDs already locked.
type DecideInput struct {
	Instances []kbgpv1.BGPNodeInstance
	NodeName  string
	// Node is the agent's Node; nil when it could not be read (not found yet).
	Node *corev1.Node
	// Locks are the router IDs in use, by local ASN: the agent's own, or at start the
	// ones a previous agent recorded in status.
	Locks map[int64]Lock
	// Restarting is true when Locks come from a previous agent: a configuration change
	// takes effect now. While running, a locked ID is kept until the next restart.
	Restarting bool
	// WaitOver is true once the agent has waited long enough for the Node to appear
	// and report addresses; an auto-detected ID then falls back to the hash instead of
	// waiting further.
	WaitOver bool
	Now      time.Time
}

// Decision is the router ID of one instance.
type Decision struct {
	// Lock is the router ID in use and where it came from; valid when Err is nil.
	Lock Lock
	// Resolved is set when the ID was resolved in this call, not reused: the caller
	// reports it (events, metrics, logs).
	Resolved *Result
	// Warning is set while a changed configuration waits for the next restart.
	Warning string
	// Err says why the instance has no router ID; the instance is not started.
	Err error
}

// ErrNodeNotReady marks a resolution that needs Node data not there yet (the Node is
// missing, or has no addresses); the agent retries it with backoff.
var ErrNodeNotReady = errors.New("node not ready")

// Retryable reports whether Err may go away without a configuration change: Node data
// arriving late, or a template whose annotation or address appears later.
func (d Decision) Retryable() bool {
	return errors.Is(d.Err, ErrNodeNotReady) || errors.Is(d.Err, ErrTemplateResolution)
}

// Decide returns the router ID of each instance: the locked one while its
// configuration is unchanged (so that node address or annotation edits never move it
// and never reset a session), otherwise a new resolution.
func Decide(in DecideInput) map[int64]Decision {
	out := make(map[int64]Decision, len(in.Instances))
	for _, inst := range in.Instances {
		out[inst.LocalASN] = decide(in, inst)
	}
	return out
}

func decide(in DecideInput, inst kbgpv1.BGPNodeInstance) Decision {
	ri := Input{
		Config:   Config{RouterID: inst.RouterID, RouterIDPool: inst.RouterIDPool},
		NodeName: in.NodeName,
	}
	var locked *Lock
	if l, ok := in.Locks[inst.LocalASN]; ok {
		locked = &l
	}
	d := CheckLock(locked, ri)
	switch {
	case d.Action == ReuseLocked:
		return Decision{Lock: *locked}
	case d.Action == ConfigChanged && !in.Restarting:
		return Decision{Lock: *locked, Warning: d.Message}
	}
	if in.Node == nil {
		return Decision{Err: fmt.Errorf("%w: Node %s not found", ErrNodeNotReady, in.NodeName)}
	}
	ri.NodeAddresses = in.Node.Status.Addresses
	ri.NodeAnnotations = in.Node.Annotations
	if inst.RouterID == "" && len(ri.NodeAddresses) == 0 && !in.WaitOver {
		return Decision{Err: fmt.Errorf("%w: Node %s reports no addresses yet", ErrNodeNotReady, in.NodeName)}
	}
	res, err := Resolve(ri)
	if err != nil {
		return Decision{Err: err}
	}
	return Decision{Lock: NewLock(ri, res, in.Now), Resolved: &res}
}

// LocksFromStatus reads the router IDs a previous agent locked in status. An entry
// without the configuration it was resolved from cannot be checked and is skipped.
func LocksFromStatus(st kbgpv1.BGPNodeConfigStatus) map[int64]Lock {
	out := map[int64]Lock{}
	for _, inst := range st.BGPInstances {
		from := inst.RouterIDResolvedFrom
		if from == nil || inst.RouterID == "" || inst.RouterIDResolutionTime == nil {
			continue
		}
		id, err := netip.ParseAddr(inst.RouterID)
		if err != nil {
			continue
		}
		out[inst.LocalASN] = Lock{
			RouterID: id, Source: inst.RouterIDSource, Node: inst.RouterIDNode,
			ResolvedAt: inst.RouterIDResolutionTime.Time,
			Config:     Config{RouterID: from.RouterID, RouterIDPool: from.RouterIDPool},
		}
	}
	return out
}
