// Package nodebgp is the node's BGP reconcile: fetch (nodeinput) → router IDs →
// intent.Build → speakers.Set.Apply → status, for the whole node on any configuration
// change, and the hot path of one Service's exports on a Service or EndpointSlice
// event. It reads the agent's own Node, checks the VRF devices peers name, keeps the
// drain clock of a cordoned node and watches only the Secrets peer configs name.
package nodebgp

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/agent/report"
	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/checkpoint"
	"kbgp.io/kbgp/internal/intent"
	"kbgp.io/kbgp/internal/metrics"
	"kbgp.io/kbgp/internal/nodeinput"
	"kbgp.io/kbgp/internal/speakers"
)

// Config is what the node's BGP reconcile reads and whom it tells.
type Config struct {
	NodeName  string
	Namespace string
	Speakers  *speakers.Set
	Status    *report.StatusWriter
	Readiness *report.Readiness
	Restart   *checkpoint.Restart
	// Clientset reads the Secrets peer configs name, one watch per name.
	Clientset kubernetes.Interface
	Recorder  record.EventRecorder
	Logger    *slog.Logger
}

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
	// secrets reads the Secrets peer configs name, and only those; secretEvents carries
	// their changes to the node's key.
	secrets      *secretWatch
	secretEvents chan event.GenericEvent
	readiness    *report.Readiness
	// exports is the per-Service index of the last full build, which Service events
	// update and diff; exportsStale is set when applying such an update failed. What
	// each peer runs with and is sent is kept by the speakers alone (speakers.Applied):
	// a full build starts from it, so nothing here mirrors it.
	exports      *intent.ExportIndex
	exportsStale bool
	// restart keeps a restore from the checkpoint from overwriting the API server's
	// state, and records what the speakers run after each apply.
	restart *checkpoint.Restart
}

// New registers the node's BGP reconcile with mgr; the watches of the Secrets it reads
// stop with mgr.
func New(mgr ctrl.Manager, c Config) (*Reconciler, error) {
	r := &Reconciler{
		client: mgr.GetClient(), nodeName: c.NodeName, namespace: c.Namespace,
		speakers: c.Speakers, status: c.Status, readiness: c.Readiness, restart: c.Restart, logger: c.Logger,
		nodes:        &nodeGetter{reader: mgr.GetAPIReader(), name: c.NodeName},
		routerIDs:    &routerIDs{nodeName: c.NodeName, recorder: c.Recorder, logger: c.Logger},
		vrfs:         &vrfDevices{recorder: c.Recorder, logger: c.Logger},
		secretEvents: make(chan event.GenericEvent, 1),
	}
	r.secrets = newSecretWatch(c.Clientset, c.Namespace, func() {
		select { // one pending event is enough: it reconciles the whole node
		case r.secretEvents <- event.GenericEvent{Object: &kbgpv1.BGPNodeConfig{ObjectMeta: metav1.ObjectMeta{Name: c.NodeName}}}:
		default:
		}
	})
	stopSecrets := manager.RunnableFunc(func(ctx context.Context) error {
		<-ctx.Done()
		r.secrets.Stop()
		return nil
	})
	if err := mgr.Add(stopSecrets); err != nil {
		return nil, err
	}
	return r, r.setup(mgr)
}

// DrainRemaining is how much longer, at now, the node's graceful-shutdown paths must
// stay out before its sessions may close (0: the node is not being drained).
func (r *Reconciler) DrainRemaining(now time.Time) time.Duration { return r.drain.remaining(now) }

// request is one unit of the node's work, of one of two kinds. Every configuration
// kind maps to the whole node, so a burst of them is one full reconcile; a Service or
// EndpointSlice event maps to its Service, reconciled on its own at the cost of that
// Service (O(change)).
type request struct {
	kind requestKind
	// service is the Service of a serviceRequest.
	service types.NamespacedName
}

type requestKind uint8

const (
	wholeNode requestKind = iota
	oneService
)

// nodeRequest is the request of the whole node.
var nodeRequest = request{kind: wholeNode}

// serviceRequest is the request of one Service.
func serviceRequest(key types.NamespacedName) request { return request{kind: oneService, service: key} }

// setup registers the controller. The agent's own Node is watched (field selector on
// its name) for the changes that alter what it announces — cordon above all, which
// starts graceful shutdown — and read fresh by nodeGetter after one.
//
// One worker: both kinds of request read and write the reconciler's state (exports,
// exportsStale, the router-ID locks, the Node cache, the VRF check) without a lock, and
// a Service's apply must not interleave with a full one. The two kinds therefore share
// one controller and its queue, and it runs one reconcile at a time.
func (r *Reconciler) setup(mgr ctrl.Manager) error {
	err := mgr.GetFieldIndexer().IndexField(context.Background(), &discoveryv1.EndpointSlice{}, endpointSliceServiceIndex, indexEndpointSliceService)
	if err != nil {
		return fmt.Errorf("index EndpointSlices by Service: %w", err)
	}
	toNode := handler.TypedEnqueueRequestsFromMapFunc(func(context.Context, client.Object) []request {
		return []request{nodeRequest}
	})
	toService := handler.TypedEnqueueRequestsFromMapFunc(func(_ context.Context, o client.Object) []request {
		return []request{serviceRequest(types.NamespacedName{Namespace: o.GetNamespace(), Name: o.GetName()})}
	})
	nodeChanged := handler.TypedEnqueueRequestsFromMapFunc(func(context.Context, client.Object) []request {
		r.nodeChanged.Store(true)
		return []request{nodeRequest}
	})
	sliceToService := handler.TypedEnqueueRequestsFromMapFunc(func(_ context.Context, o client.Object) []request {
		if svc, ok := intent.EndpointSliceService(o.(*discoveryv1.EndpointSlice)); ok {
			return []request{serviceRequest(svc)}
		}
		return nil
	})
	return builder.TypedControllerManagedBy[request](mgr).
		Named("bgpnodeconfig-agent").
		WithOptions(controller.TypedOptions[request]{MaxConcurrentReconciles: 1}).
		// The agent's own status writes must not rebuild everything: only spec changes
		// (a new generation) reconcile. Status is read when reconciling anyway. The
		// cache holds this node's BGPNodeConfig only.
		Watches(&kbgpv1.BGPNodeConfig{}, toNode, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Watches(&kbgpv1.BGPPeerConfig{}, toNode).
		Watches(&kbgpv1.BGPAdvertisement{}, toNode).
		Watches(&kbgpv1.LoadBalancerIPPool{}, toNode, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		WatchesRawSource(source.TypedChannel(r.secretEvents, toNode)).
		Watches(&corev1.Node{}, nodeChanged, builder.WithPredicates(nodeMatters)).
		Watches(&corev1.Service{}, toService).
		Watches(&discoveryv1.EndpointSlice{}, sliceToService).
		Complete(metrics.InstrumentTyped(reconcile.TypedFunc[request](r.reconcile)))
}

// reconcile handles one Service (see reconcileService) or the whole node.
func (r *Reconciler) reconcile(ctx context.Context, req request) (reconcile.Result, error) {
	if req.kind == oneService {
		return r.reconcileService(ctx, req.service)
	}
	return r.reconcileAll(ctx)
}

// reconcileAll is fetch → router IDs → intent.Build → speakers.Set.Apply → status. A
// missing BGPNodeConfig means this node runs no BGP: every speaker stops with a Cease.
func (r *Reconciler) reconcileAll(ctx context.Context) (reconcile.Result, error) {
	in, err := r.fetch(ctx)
	if err != nil {
		return reconcile.Result{}, err
	}
	r.restart.GoLive()
	defer r.restart.Trigger()
	r.readiness.Expect(in.NodeConfig)
	if in.NodeConfig == nil {
		r.exports = nil
		r.status.Update(nil, intent.Result{}, nil, nil)
		r.status.SetRefused(nil)
		return reconcile.Result{}, r.speakers.Apply(ctx, bgp.Desired{})
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
	// Peers and instances that cannot be built now keep running as they run.
	in.Previous = r.speakers.Applied()
	res := intent.Build(in)
	applyErr := r.speakers.Apply(ctx, res.Desired)
	if applyErr == nil {
		r.drain.observe(res.ShutdownWait, now)
	}
	// Even after a failed Apply the index is good to build on: the speakers' books say
	// what did run, ApplyExports skips peers that are not running, and the returned
	// error retries the whole apply.
	r.exports, r.exportsStale = res.Exports, false
	r.status.Update(in.NodeConfig, intent.Result{Failed: res.Failed}, decisions, applyErr)
	r.status.SetRefused(res.Exports.Refused())
	if applyErr != nil {
		return reconcile.Result{}, fmt.Errorf("apply BGP configuration: %w", applyErr)
	}
	return reconcile.Result{RequeueAfter: r.requeueAfter(node, now)}, nil
}

// requeueAfter is when the agent reconciles again without being asked: while a router
// ID waits for the Node (backoff), while a peer's VRF device is missing, or while the
// Node has no pod CIDRs yet (they are assigned once, some time after the Node
// registers). The soonest of these wins.
func (r *Reconciler) requeueAfter(node *corev1.Node, now time.Time) time.Duration {
	var after time.Duration
	soonest := func(d time.Duration) {
		if d > 0 && (after == 0 || d < after) {
			after = d
		}
	}
	soonest(r.routerIDs.retryAfter(now))
	soonest(r.vrfs.retryAfter())
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
