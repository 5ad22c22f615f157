package nodebgp

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"kbgp.io/kbgp/internal/agent/report"
	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/checkpoint"
	"kbgp.io/kbgp/internal/exports"
	"kbgp.io/kbgp/internal/intent"
	"kbgp.io/kbgp/internal/nodeinput"
	"kbgp.io/kbgp/internal/speakers"
)

// Reconciler makes this node's speakers match its BGPNodeConfig.
type Reconciler struct {
	client    client.Client
	nodeName  string
	namespace string
	speakers  *speakers.Set
	status    *report.StatusWriter
	logger    *slog.Logger
	nodes     *nodeGetter
	// nodeChanged is set by a watched change of the Node that matters (see
	// nodeMatters): the next full reconcile reads the Node fresh.
	nodeChanged atomic.Bool
	// drain is since when, and for how long, graceful-shutdown paths are out.
	drain     drainClock
	routerIDs *routerIDs
	vrfs      *vrfDevices
	ifaces    *interfaceNeighbors
	gateways  *defaultGateways
	adverts   *routerAdverts
	// kernel follows the routes and neighbours the peers found on the node depend on.
	kernel *kernelWatch
	// secrets reads the Secrets peer configs name, and only those. nodeEvents carries
	// their changes, and the kernel's that matter, to the node's key.
	secrets    *secretWatch
	nodeEvents chan event.GenericEvent
	// reserved are the cluster's addresses no Service announces (intent.Reserved): a
	// full reconcile reads them all, a Node's or the ServiceCIDRs' event changes them
	// in place, and the exports index reads them.
	reserved     *intent.Reserved
	serviceCIDRs *serviceCIDRWatch
	cidrEvents   chan event.GenericEvent
	// cidrsAwaited is set once a full build has waited for the ServiceCIDRs' first list
	// (readReserved): later builds read what the watch knows, and its event follows.
	cidrsAwaited bool
	readiness    *report.Readiness
	// exports is the per-Service index of the last full build, which Service events
	// update and diff; exportsStale is set when applying such an update failed. What
	// each peer runs with and is sent is kept by the speakers alone (speakers.Applied):
	// a full build starts from it, so nothing here mirrors it.
	exports      *exports.Index
	exportsStale bool
	// aggregation are the aggregation lengths of the last full build's
	// advertisements, for reconcileReserved.
	aggregation intent.AggregationLengths
	// pacer paces the Services' weight changes across full builds (see
	// exports.WeightInterval); queue is the controller's, to set a Service it held
	// back again when its interval has passed.
	pacer *exports.Pacer
	queue atomic.Pointer[workqueue.TypedRateLimitingInterface[request]]
	// restart keeps a restore from the checkpoint from overwriting the API server's
	// state, and records what the speakers run after each apply.
	restart *checkpoint.Restart
	// synced logs "caches synced" once, at the first reconcile: the controller starts
	// its workers only after every watch's cache synced, so that line's time is the
	// end of the start-up's cache phase (bench B1s reads it).
	synced sync.Once
	// coverage drops the requests a full build has covered since their event;
	// buildStart is where a full build the current request makes starts.
	coverage   *coverage
	buildStart uint64
	// memory hands back what a bulk build or change left behind.
	memory *memoryRelease
}

// reconcile handles one Service (see reconcileService), a reservation's change (see
// reconcileReserved) or the whole node.
func (r *Reconciler) reconcile(ctx context.Context, req request) (reconcile.Result, error) {
	r.synced.Do(func() { r.logger.Info("caches synced", "controller", controllerName) })
	covered, start := r.coverage.take(req)
	if covered {
		return reconcile.Result{}, nil
	}
	r.buildStart = start
	switch req.kind {
	case oneService, heldService:
		return r.requeueWholeNode(r.reconcileService(ctx, req.service))
	case reservedNode, reservedServiceCIDRs:
		return r.requeueWholeNode(r.reconcileReserved(ctx, req))
	}
	return r.reconcileAll(ctx)
}

// requeueWholeNode gives the whole node's request the wait of a full build another
// request made (reconcileService and reconcileReserved build everything when nothing
// is built yet or the last build went stale): that request's own requeue would only
// set its Service again, and the whole node's request queued beside it may have been
// dropped as covered by that very build. The waits are those of requeueAfter: a
// router ID's backoff, a missing VRF device, pod CIDRs not yet assigned.
func (r *Reconciler) requeueWholeNode(res reconcile.Result, err error) (reconcile.Result, error) {
	if q := r.queue.Load(); q != nil && res.RequeueAfter > 0 {
		(*q).AddAfter(nodeRequest, res.RequeueAfter)
	}
	return res, err
}

// reconcileAll is fetch → router IDs → intent.Build → speakers.Set.Apply → status. A
// missing BGPNodeConfig means this node runs no BGP: every speaker stops with a Cease.
func (r *Reconciler) reconcileAll(ctx context.Context) (reconcile.Result, error) {
	start, began := r.buildStart, time.Now()
	in, err := r.fetch(ctx)
	if err != nil {
		return reconcile.Result{}, err
	}
	r.restart.GoLive()
	defer r.restart.Trigger()
	r.readiness.Expect(in.NodeConfig)
	if in.NodeConfig == nil {
		r.exports = nil
		r.adverts.set(nil)
		r.kernel.reconciled(nil, nil, discovered{})
		r.status.Update(nil, intent.Result{}, nil, nil)
		r.status.SetRefused(nil)
		if err := r.speakers.Apply(ctx, bgp.Desired{}); err != nil {
			return reconcile.Result{}, err
		}
		r.coverage.done(start)
		return reconcile.Result{}, nil
	}
	node, err := r.nodes.get(ctx, r.nodeChanged.Swap(false) || r.routerIDs.pending())
	if err != nil {
		r.logger.Warn("reading Node; using the last one read", "node", r.nodeName, "error", err)
	}
	in.Node = node
	now := time.Now()
	decisions := r.routerIDs.decide(in.NodeConfig, node, now)
	in.RouterIDs = ids(decisions)
	in.MissingVRFs = r.vrfs.check(in.NodeConfig)
	in.InterfaceNeighbors = r.ifaces.check(in.NodeConfig)
	in.DefaultGateways = r.gateways.check(in.NodeConfig)
	addressIfaces := intent.AddressInterfaces(in.Advertisements)
	in.InterfaceAddresses = interfaceAddresses(addressIfaces)
	r.kernel.reconciled(in.NodeConfig, addressIfaces, discovered{neighbours: in.InterfaceNeighbors, gateways: in.DefaultGateways, addresses: in.InterfaceAddresses})
	r.adverts.set(peerInterfaces(in.NodeConfig))
	// Peers and instances that cannot be built now keep running as they run.
	in.Previous = r.speakers.Applied()
	if in.Reserved, err = r.readReserved(ctx); err != nil {
		return reconcile.Result{}, err
	}
	r.reserved = in.Reserved
	in.Pacer, in.Now = r.pacer, time.Now
	res := intent.Build(in)
	r.requeueHeld(res.Exports)
	applyErr := r.speakers.Apply(ctx, res.Desired)
	r.memory.after(desiredRoutes(res.Desired))
	if applyErr == nil {
		r.drain.observe(res.ShutdownWait, now)
	}
	// Even after a failed Apply the index is good to build on: the speakers' books say
	// what did run, ApplyExports skips peers that are not running, and the returned
	// error retries the whole apply.
	r.exports, r.exportsStale, r.aggregation = res.Exports, false, res.Aggregation
	r.status.Update(in.NodeConfig, intent.Result{Failed: res.Failed}, decisions, applyErr)
	r.status.SetRefused(res.Exports.Refused())
	if applyErr != nil {
		return reconcile.Result{}, fmt.Errorf("apply BGP configuration: %w", applyErr)
	}
	r.coverage.done(start)
	r.logger.Debug("built the node's BGP configuration", "took", time.Since(began))
	return reconcile.Result{RequeueAfter: r.requeueAfter(node, now)}, nil
}

// requeueAfter is when the agent reconciles again without being asked: while a router
// ID waits for the Node (backoff), while a peer's VRF device, interface router or default
// gateway is missing, or while the Node has no pod CIDRs yet (they are assigned once, some time
// after the Node registers). The soonest of these wins.
func (r *Reconciler) requeueAfter(node *corev1.Node, now time.Time) time.Duration {
	var after time.Duration
	soonest := func(d time.Duration) {
		if d > 0 && (after == 0 || d < after) {
			after = d
		}
	}
	soonest(r.routerIDs.retryAfter(now))
	soonest(r.vrfs.retryAfter())
	soonest(r.ifaces.retryAfter())
	soonest(r.gateways.retryAfter())
	if node == nil || len(node.Spec.PodCIDRs) == 0 {
		soonest(nodeCacheTTL)
	}
	return after
}

// fetch reads what intent.Build needs (nodeinput, as `kubectl bgp routes` does): the
// node config, the referenced peer configs and Secrets, advertisements, Services and
// EndpointSlices from the cache. The Secrets no peer config names any more stop being
// read.
func (r *Reconciler) fetch(ctx context.Context) (intent.Input, error) {
	nc, err := nodeinput.ReadNodeConfig(ctx, r.client, r.nodeName)
	if err != nil || nc == nil {
		return intent.Input{}, err
	}
	src := nodeinput.Sources{Reader: r.client, Secret: r.secrets.Secret, Cached: true}
	cluster, err := nodeinput.ReadCluster(ctx, src)
	if err != nil {
		return intent.Input{}, err
	}
	in, err := nodeinput.ForNode(ctx, src, cluster, nc)
	if err != nil {
		return in, err
	}
	r.secrets.Keep(nodeinput.ReferencedSecrets(in.PeerConfigs))
	return in, nil
}
