package routerid

import (
	"fmt"
	"net/netip"
	"strings"
	"time"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// Lock is a resolved router ID as the agent records it, together with the
// configuration it was resolved from. The first four fields map to
// BGPNodeInstanceStatus (routerID, routerIDSource, routerIDNode,
// routerIDResolutionTime); the status has no field for Config, so the caller keeps it
// wherever it persists the lock.
type Lock struct {
	// RouterID is the locked router ID.
	RouterID netip.Addr
	// Source is how RouterID was resolved.
	Source kbgpv1.RouterIDSource
	// Node is the name of the Node RouterID was resolved from.
	Node string
	// ResolvedAt is when RouterID was resolved.
	ResolvedAt time.Time
	// Config is the configuration RouterID was resolved from.
	Config Config
}

// NewLock records a successful resolution. The time comes in as a parameter so that
// this package never reads a clock.
func NewLock(in Input, res Result, now time.Time) Lock {
	return Lock{RouterID: res.RouterID, Source: res.Source, Node: in.NodeName, ResolvedAt: now, Config: in.Config}
}

// Message says what is locked, in the words of the RouterIDResolved event.
func (l Lock) Message() string { return resolvedMessage(l.RouterID, l.Source, l.Node) }

// LockAction is what the caller does about a locked router ID.
type LockAction int

const (
	// ResolveAndLock: nothing usable is locked. Resolve, then lock the result.
	ResolveAndLock LockAction = iota + 1
	// ReuseLocked: the configuration is unchanged. Use the locked ID without
	// resolving, even if the node's addresses or annotations changed: re-resolving
	// then would flap every session (docs/router-id.md, immutability).
	ReuseLocked
	// ConfigChanged: the configuration differs from the locked one. A running agent
	// keeps the locked ID and reports Message; at its next restart it resolves anew.
	ConfigChanged
)

// LockDecision is CheckLock's answer.
type LockDecision struct {
	// Action is what the caller does.
	Action LockAction
	// RouterID is the locked ID for ReuseLocked and ConfigChanged.
	RouterID netip.Addr
	// Message explains ResolveAndLock over an unusable lock and ConfigChanged; it is
	// empty otherwise.
	Message string
}

// CheckLock decides whether a locked router ID still applies to the current input. It
// compares only the configuration (override, routerID, routerIDPool, with an empty
// pool equal to DefaultPool): the node's addresses and annotations are deliberately
// ignored, because a change there must not move a locked ID. A lock whose ID fails
// Validate (a corrupted status) or that names another node is never reused. Whether
// the agent is restarting is the caller's knowledge, not this function's: on
// ConfigChanged a restarting agent resolves anew, a running one keeps RouterID.
func CheckLock(locked *Lock, in Input) LockDecision {
	if locked == nil {
		return LockDecision{Action: ResolveAndLock}
	}
	if err := Validate(locked.RouterID); err != nil {
		return LockDecision{Action: ResolveAndLock, Message: fmt.Sprintf("locked %v; resolving again", err)}
	}
	if locked.Node != in.NodeName {
		return LockDecision{Action: ResolveAndLock,
			Message: fmt.Sprintf("locked router ID was resolved on node %q, not %q; resolving again", locked.Node, in.NodeName)}
	}
	changes := lockChanges(*locked, in)
	if len(changes) == 0 {
		return LockDecision{Action: ReuseLocked, RouterID: locked.RouterID}
	}
	return LockDecision{
		Action:   ConfigChanged,
		RouterID: locked.RouterID,
		Message: fmt.Sprintf("router ID configuration changed (%s); keeping %s, the change takes effect at next restart",
			strings.Join(changes, ", "), locked.RouterID),
	}
}

// lockChanges lists what differs between the lock and the input, quoted so that no
// value can break the message.
func lockChanges(locked Lock, in Input) []string {
	var changes []string
	diff := func(field, was, is string) {
		if was != is {
			changes = append(changes, fmt.Sprintf("%s %q -> %q", field, was, is))
		}
	}
	diff("override", locked.Config.Override, in.Override)
	diff("routerID", locked.Config.RouterID, in.RouterID)
	diff("routerIDPool", poolOrDefault(locked.Config.RouterIDPool), poolOrDefault(in.RouterIDPool))
	return changes
}
