package nodebgp

import (
	"errors"
	"log/slog"
	"maps"
	"net/netip"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/record"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/metrics"
	"kbgp.io/kbgp/internal/routerid"
	"kbgp.io/kbgp/internal/sanitize"
)

// Router-ID event reasons on the BGPNodeConfig (docs/router-id.md, plus ConfigChanged for a
// change that waits for the next restart).
const (
	EventRouterIDResolved         = "RouterIDResolved"
	EventRouterIDResolutionFailed = "RouterIDResolutionFailed"
	EventRouterIDFallback         = "RouterIDFallback"
	EventRouterIDConfigError      = "RouterIDConfigError"
	EventRouterIDConfigChanged    = "RouterIDConfigChanged"
)

// maxNodeWait is how long the agent waits for its Node to appear and report addresses
// before it gives up (cloud providers fill addresses 10-60 s after registration).
const maxNodeWait = 5 * time.Minute

// routerIDs keeps the agent's router-ID locks and reports what happens to them. Only
// the reconciler goroutine uses it.
type routerIDs struct {
	nodeName string
	recorder record.EventRecorder
	logger   *slog.Logger
	sources  metrics.RouterIDSources

	// locks are the router IDs in use by local ASN; loaded once the first decision
	// read the locks a previous agent left in status.
	locks  map[int64]routerid.Lock
	loaded bool
	// waitingSince is when the agent started waiting for Node data (zero when it is
	// not waiting); attempts counts the retries since, for the backoff.
	waitingSince time.Time
	attempts     int
	// reported is the last warning or failure reported per ASN, so a message repeated
	// by every reconcile is one event and one log line.
	reported map[int64]string
}

// pending reports whether a resolution waits for Node data: the next reconcile needs a
// fresh Node and comes after retryAfter.
func (r *routerIDs) pending() bool { return !r.waitingSince.IsZero() }

// retryAfter is the exponential backoff while waiting: 1 s, 2 s, 4 s ... until
// maxNodeWait has passed, then every maxNodeWait (the failure is reported by then,
// but an annotation or address added later is still picked up).
func (r *routerIDs) retryAfter(now time.Time) time.Duration {
	if !r.pending() {
		return 0
	}
	left := maxNodeWait - now.Sub(r.waitingSince)
	if left <= 0 {
		return maxNodeWait
	}
	return min(time.Second<<min(r.attempts, 16), left)
}

// decide returns the router ID of every instance of nc, reusing locks, and emits the
// events, metrics and logs of whatever changed.
func (r *routerIDs) decide(nc *kbgpv1.BGPNodeConfig, node *corev1.Node, now time.Time) map[int64]routerid.Decision {
	in := routerid.DecideInput{
		Instances: nc.Spec.BGPInstances, NodeName: r.nodeName, Node: node, Now: now, Locks: r.locks,
		WaitOver: r.pending() && now.Sub(r.waitingSince) >= maxNodeWait,
	}
	if !r.loaded {
		in.Locks, in.Restarting = routerid.LocksFromStatus(nc.Status), true
	}
	start := time.Now()
	decisions := routerid.Decide(in)
	took := time.Since(start)
	r.loaded = true

	locks := map[int64]routerid.Lock{}
	sources := map[string]int{}
	waiting := false
	for _, asn := range slices.Sorted(maps.Keys(decisions)) {
		d := decisions[asn]
		if d.Err == nil {
			locks[asn] = d.Lock
			sources[string(d.Lock.Source)]++
		}
		if d.Retryable() {
			waiting = true
		}
		r.report(nc, asn, d, in.WaitOver, took)
	}
	r.locks = locks
	r.sources.Set(sources)
	r.trackWait(waiting, now)
	return decisions
}

// report emits what one decision needs: events and logs for a new resolution, a
// failure or a pending configuration change; nothing for a reused lock.
func (r *routerIDs) report(nc *kbgpv1.BGPNodeConfig, asn int64, d routerid.Decision, waitOver bool, took time.Duration) {
	log := r.logger.With("instance", asn, "node", sanitize.Line(r.nodeName))
	switch {
	case d.Resolved != nil:
		metrics.ObserveRouterIDResolution(metrics.RouterIDSuccess, took)
		log.Info("router ID resolved", "routerID", d.Lock.RouterID, "source", d.Lock.Source)
		r.recorder.Event(nc, corev1.EventTypeNormal, EventRouterIDResolved, d.Resolved.Message)
		if d.Resolved.Fallback {
			r.recorder.Event(nc, corev1.EventTypeNormal, EventRouterIDFallback, routerid.FallbackMessage)
		}
		delete(r.reported, asn)
	case d.Warning != "":
		if r.once(asn, d.Warning) {
			log.Warn("router ID configuration changed; keeping the locked router ID until the agent restarts",
				"routerID", d.Lock.RouterID, "source", d.Lock.Source, "detail", sanitize.Line(d.Warning))
			r.recorder.Event(nc, corev1.EventTypeWarning, EventRouterIDConfigChanged, sanitize.Line(d.Warning))
		}
	case d.Err != nil && errors.Is(d.Err, routerid.ErrNodeNotReady) && !waitOver:
		if r.once(asn, d.Err.Error()) {
			log.Info("waiting for the Node before resolving the router ID", "reason", sanitize.Line(d.Err.Error()))
		}
	case d.Err != nil:
		metrics.ObserveRouterIDResolution(metrics.RouterIDFailure, took)
		reason := EventRouterIDResolutionFailed
		if errors.Is(d.Err, routerid.ErrInvalidConfig) {
			reason = EventRouterIDConfigError
		}
		if r.once(asn, d.Err.Error()) {
			log.Error("router ID not resolved; the instance is not started", "error", sanitize.Line(d.Err.Error()))
			r.recorder.Event(nc, corev1.EventTypeWarning, reason, sanitize.Line(d.Err.Error()))
		}
	default:
		delete(r.reported, asn)
	}
}

// once reports whether msg is new for asn, and remembers it.
func (r *routerIDs) once(asn int64, msg string) bool {
	if r.reported == nil {
		r.reported = map[int64]string{}
	}
	if r.reported[asn] == msg {
		return false
	}
	r.reported[asn] = msg
	return true
}

// trackWait starts, advances or ends the backoff.
func (r *routerIDs) trackWait(waiting bool, now time.Time) {
	switch {
	case !waiting:
		r.waitingSince, r.attempts = time.Time{}, 0
	case r.waitingSince.IsZero():
		r.waitingSince, r.attempts = now, 0
	default:
		r.attempts++
	}
}

// ids returns the router IDs decided, for intent.Build.
func ids(decisions map[int64]routerid.Decision) map[int64]netip.Addr {
	out := make(map[int64]netip.Addr, len(decisions))
	for asn, d := range decisions {
		if d.Err == nil {
			out[asn] = d.Lock.RouterID
		}
	}
	return out
}
