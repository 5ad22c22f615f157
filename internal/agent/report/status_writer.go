// Package report is what the agent tells about its node: the BGPNodeConfig status
// (StatusWriter), the peer events and per-session metrics found on the way, readiness
// for a rollout (Readiness) and the liveness Lease the operator watches (LeaseRenewer).
// It reads the speakers and the latest reconcile's view, and changes neither.
package report

import (
	"context"
	"log/slog"
	"maps"
	"math/rand/v2"
	"net/netip"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/intent"
	"kbgp.io/kbgp/internal/metrics"
	"kbgp.io/kbgp/internal/nodestatus"
	"kbgp.io/kbgp/internal/routerid"
	"kbgp.io/kbgp/internal/sanitize"
	"kbgp.io/kbgp/internal/speakers"
	"kbgp.io/kbgp/internal/status"
)

const defaultStatusInterval = 5 * time.Second

// FieldManager is the agent's server-side-apply identity on BGPNodeConfig status.
const FieldManager = "kbgp-agent"

// Signal wakes a level-driven loop: many Fire calls before it wakes up are one.
type Signal chan struct{}

// NewSignal returns a Signal that holds one pending wake-up.
func NewSignal() Signal { return make(Signal, 1) }

// Fire asks for a wake-up without blocking.
func (s Signal) Fire() {
	select {
	case s <- struct{}{}:
	default:
	}
}

// StatusWriter is level-driven: reconciles and session state changes only signal it;
// its own goroutine rebuilds the status and applies it when it differs from what it last
// wrote, at most once per interval (with jitter, so nodes do not write in lockstep).
type StatusWriter struct {
	client   client.Client
	nodeName string
	interval time.Duration
	logger   *slog.Logger
	signal   Signal
	speakers *speakers.Set
	// recorder gets PeerEstablished/PeerDown, found by comparing each snapshot with
	// lastSnapshot (only the writer goroutine touches it).
	recorder record.EventRecorder
	// readiness learns from every snapshot whether the sessions are back after a start.
	readiness *Readiness
	// importCounts are the importing peers' installed and rejected routes.
	importCounts func() map[netip.Addr]status.ImportCount
	lastSnapshot map[bgp.InstanceKey]speakers.InstanceSnapshot
	sessions     metrics.Sessions

	mu sync.Mutex
	// nodeConfig, build, routerIDs and applyErr are the latest reconcile's view.
	nodeConfig *kbgpv1.BGPNodeConfig
	build      intent.Result
	// refused are the messages of the Services (namespace/name) whose addresses no
	// advertisement allows; they change on full builds and on Service events alike,
	// and a Service event changes one entry, whatever the number of refused Services.
	refused   map[string]string
	routerIDs map[int64]routerid.Decision
	applyErr  error
	// written is the status last applied; nil until the first write.
	written *kbgpv1.BGPNodeConfigStatus
}

// StatusConfig is what a StatusWriter reads and where it writes.
type StatusConfig struct {
	Client   client.Client
	NodeName string
	// Interval is the least time between two writes (0: 5 s).
	Interval time.Duration
	Logger   *slog.Logger
	Speakers *speakers.Set
	// Recorder gets the peer and refused-address events; nil: none.
	Recorder record.EventRecorder
	// Readiness learns from every snapshot; nil: none.
	Readiness *Readiness
	// Changed wakes the writer: the speakers fire it when a session changes, Trigger
	// after a reconcile. Nil: a signal of its own.
	Changed Signal
	// ImportCounts are the importing peers' installed and rejected routes
	// (status.Input.ImportCounts); nil: no routes go into the kernel.
	ImportCounts func() map[netip.Addr]status.ImportCount
}

// NewStatusWriter returns the node's status writer; Start runs it.
func NewStatusWriter(c StatusConfig) *StatusWriter {
	if c.Interval <= 0 {
		c.Interval = defaultStatusInterval
	}
	if c.Changed == nil {
		c.Changed = NewSignal()
	}
	return &StatusWriter{client: c.Client, nodeName: c.NodeName, interval: c.Interval, logger: c.Logger, signal: c.Changed,
		speakers: c.Speakers, recorder: c.Recorder, readiness: c.Readiness, importCounts: c.ImportCounts}
}

// Trigger asks for a status refresh without blocking; many triggers before the writer
// wakes up are one refresh.
func (w *StatusWriter) Trigger() { w.signal.Fire() }

// Update records the latest reconcile and triggers a refresh; a nil node config (it
// was deleted) stops the writes.
func (w *StatusWriter) Update(nc *kbgpv1.BGPNodeConfig, build intent.Result, routerIDs map[int64]routerid.Decision, applyErr error) {
	w.mu.Lock()
	w.nodeConfig, w.build, w.routerIDs, w.applyErr = nc, build, routerIDs, applyErr
	if nc == nil {
		w.written = nil
	}
	w.mu.Unlock()
	w.Trigger()
}

// SetRefused replaces the Services whose addresses are refused (after a full build,
// as exports.Index.Refused lists them) and triggers a refresh if they changed. Each
// Service newly refused, or refused for another reason, gets an AddressNotAllowed event.
func (w *StatusWriter) SetRefused(refused []kbgpv1.FailedResource) {
	next := make(map[string]string, len(refused))
	for _, r := range refused {
		next[r.Name] = r.Message
	}
	w.mu.Lock()
	old, nc := w.refused, w.nodeConfig
	w.refused = next
	w.mu.Unlock()
	changed := len(old) != len(next)
	for _, r := range refused {
		if msg, ok := old[r.Name]; ok && msg == r.Message {
			continue
		}
		changed = true
		w.addressNotAllowed(nc, r.Name, r.Message)
	}
	if changed {
		w.Trigger()
	}
}

// SetRefusedOf records the refusal of one Service ("" when none), after its event:
// constant work, where replacing the whole list cost a comparison with every other
// refused Service (0.7 s per event at 10k of them).
func (w *StatusWriter) SetRefusedOf(name, msg string) {
	w.mu.Lock()
	old, nc := w.refused[name], w.nodeConfig
	if msg == "" {
		delete(w.refused, name)
	} else {
		if w.refused == nil {
			w.refused = map[string]string{}
		}
		w.refused[name] = msg
	}
	w.mu.Unlock()
	if old == msg {
		return
	}
	if msg != "" {
		w.addressNotAllowed(nc, name, msg)
	}
	w.Trigger()
}

func (w *StatusWriter) addressNotAllowed(nc *kbgpv1.BGPNodeConfig, name, msg string) {
	if nc == nil || w.recorder == nil {
		return
	}
	w.recorder.Event(nc, corev1.EventTypeWarning, EventAddressNotAllowed, sanitize.Line("Service "+name+": "+msg))
}

// EventAddressNotAllowed is the reason of the event naming a Service whose address an
// advertisement selects but does not allow.
const EventAddressNotAllowed = "AddressNotAllowed"

// Start runs the writer until ctx ends (manager.Runnable).
func (w *StatusWriter) Start(ctx context.Context) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-w.signal:
		}
		if !w.write(ctx) {
			w.Trigger() // retry after the pause below
		}
		jitter := time.Duration(rand.Int64N(int64(w.interval) / 5))
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(w.interval + jitter):
		}
	}
}

// write applies the status if it changed; it reports false when a retry is needed.
func (w *StatusWriter) write(ctx context.Context) bool {
	w.mu.Lock()
	nc, build, routerIDs, applyErr, written := w.nodeConfig, w.build, w.routerIDs, w.applyErr, w.written
	build.Failed = slices.Clone(build.Failed)
	for _, name := range slices.Sorted(maps.Keys(w.refused)) {
		build.Failed = append(build.Failed, kbgpv1.FailedResource{Kind: "Service", Name: name, Message: w.refused[name]})
	}
	w.mu.Unlock()
	if nc == nil || w.speakers == nil {
		return true
	}
	snap, err := w.speakers.Snapshot(ctx)
	if err != nil {
		w.logger.Warn("reading BGP state for status", "error", err)
	}
	w.recordPeerEvents(nc, snap)
	w.sessions.Update(peerSamples(nc, snap))
	if w.readiness != nil {
		w.readiness.observe(snap)
	}
	previous := nc.Status
	if written != nil {
		previous = *written
	}
	now := metav1.NewTime(time.Now().UTC().Truncate(time.Second))
	st := status.Build(status.Input{
		NodeConfig: nc, Failed: build.Failed, RouterIDs: routerIDs, Snapshot: snap, PeerErrors: w.speakers.PeerErrors(),
		ApplyError: applyErr, Previous: previous, ImportCounts: w.imported(),
	})
	st.LastUpdateTime = previous.LastUpdateTime
	if written != nil && equality.Semantic.DeepEqual(st, *written) {
		return true
	}
	st.LastUpdateTime = &now
	if err := w.apply(ctx, st); err != nil {
		w.logger.Warn("writing BGPNodeConfig status", "node", w.nodeName, "error", err)
		return false
	}
	metrics.CountStatusWrite()
	w.mu.Lock()
	w.written = &st
	w.mu.Unlock()
	return true
}

// ReassertIfMarkedStale re-applies the agent's status when the operator has marked the
// node AgentNotReporting (its Lease had expired). It is called after each Lease
// renewal, so the mark clears as soon as the agent is live again, even when nothing
// else in its status changed.
func (w *StatusWriter) ReassertIfMarkedStale(ctx context.Context) {
	nc := &kbgpv1.BGPNodeConfig{}
	if err := w.client.Get(ctx, types.NamespacedName{Name: w.nodeName}, nc); err != nil || !status.MarkedNotReporting(nc.Status.Conditions) {
		return
	}
	w.logger.Info("the operator marked this node not reporting; writing the status again", "node", w.nodeName)
	w.mu.Lock()
	w.written = nil
	w.mu.Unlock()
	w.Trigger()
}

// MarkShutdown sets Ready=False (AgentShutdown) in the status when the agent stops and
// no peer keeps its routes through graceful restart: the node no longer announces
// anything and status must not say Ready. With graceful restart the peers keep the
// routes as stale while the agent restarts, so Ready stays. Call it after the writer
// stopped.
func (w *StatusWriter) MarkShutdown(ctx context.Context) {
	w.mu.Lock()
	written, nc := w.written, w.nodeConfig
	w.mu.Unlock()
	if written == nil || nc == nil || keepsRoutes(w.lastSnapshot) {
		return
	}
	st := *written.DeepCopy()
	meta.SetStatusCondition(&st.Conditions, metav1.Condition{
		Type: kbgpv1.ConditionReady, Status: metav1.ConditionFalse, Reason: kbgpv1.ReasonAgentShutdown,
		Message: "the agent stopped and closed its sessions", ObservedGeneration: nc.Generation,
	})
	now := metav1.NewTime(time.Now().UTC().Truncate(time.Second))
	st.LastUpdateTime = &now
	if err := w.apply(ctx, st); err != nil {
		w.logger.Warn("marking the status AgentShutdown", "node", w.nodeName, "error", err)
		return
	}
	metrics.CountStatusWrite()
}

// keepsRoutes reports whether some peer holds the node's routes across a restart: an
// Established session with graceful restart configured.
func keepsRoutes(snap map[bgp.InstanceKey]speakers.InstanceSnapshot) bool {
	for _, inst := range snap {
		for _, p := range inst.Peers {
			if p.Peer.GracefulRestart.Enabled && p.Status.State == bgp.StateEstablished {
				return true
			}
		}
	}
	return false
}

// recordPeerEvents emits the session changes since the last snapshot and logs them.
func (w *StatusWriter) recordPeerEvents(nc *kbgpv1.BGPNodeConfig, snap map[bgp.InstanceKey]speakers.InstanceSnapshot) {
	for _, e := range status.PeerEvents(w.lastSnapshot, snap) {
		w.logger.Info("BGP session changed", "reason", e.Reason, "detail", e.Message)
		if w.recorder != nil {
			w.recorder.Event(nc, e.Type, e.Reason, e.Message)
		}
	}
	w.lastSnapshot = snap
}

// apply server-side applies the agent's part of the status. failedResources is a map
// list keyed by (kind, name), so the operator's entries survive the agent's apply.
func (w *StatusWriter) apply(ctx context.Context, st kbgpv1.BGPNodeConfigStatus) error {
	return nodestatus.Apply(ctx, w.client, w.nodeName, FieldManager, &st)
}

// imported are the importing peers' counts, none without a kernel route installer.
func (w *StatusWriter) imported() map[netip.Addr]status.ImportCount {
	if w.importCounts == nil {
		return nil
	}
	return w.importCounts()
}
