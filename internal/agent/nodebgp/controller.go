package nodebgp

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/agent/report"
	"kbgp.io/kbgp/internal/checkpoint"
	"kbgp.io/kbgp/internal/exports"
	"kbgp.io/kbgp/internal/intent"
	"kbgp.io/kbgp/internal/metrics"
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

// New registers the node's BGP reconcile with mgr; the watches of the Secrets it reads
// and of the kernel, and its router advertisements, stop with mgr.
func New(mgr ctrl.Manager, c Config) (*Reconciler, error) {
	r := &Reconciler{
		client: mgr.GetClient(), nodeName: c.NodeName, namespace: c.Namespace,
		speakers: c.Speakers, status: c.Status, readiness: c.Readiness, restart: c.Restart, logger: c.Logger,
		nodes:      &nodeGetter{reader: mgr.GetAPIReader(), name: c.NodeName},
		routerIDs:  &routerIDs{nodeName: c.NodeName, recorder: c.Recorder, logger: c.Logger},
		vrfs:       &vrfDevices{recorder: c.Recorder, logger: c.Logger},
		ifaces:     newInterfaceNeighbors(c.Recorder, c.Logger, kernelNeighbours),
		adverts:    &routerAdverts{logger: c.Logger},
		gateways:   newDefaultGateways(c.Recorder, c.Logger, kernelDefaultRoutes),
		nodeEvents: make(chan event.GenericEvent, 1),
		reserved:   intent.NewReserved(),
		cidrEvents: make(chan event.GenericEvent, 1),
		pacer:      exports.NewPacer(exports.WeightInterval),
		coverage:   newCoverage(),
		memory:     newMemoryRelease(),
	}
	r.serviceCIDRs = newServiceCIDRWatch(c.Clientset.Discovery(), c.Clientset, c.Logger, func() {
		select { // one pending event is enough: it re-reads every ServiceCIDR
		case r.cidrEvents <- event.GenericEvent{Object: &networkingv1.ServiceCIDR{}}:
		default:
		}
	})
	if err := mgr.Add(r.serviceCIDRs); err != nil {
		return nil, err
	}
	reconcileNode := func() {
		select { // one pending event is enough: it reconciles the whole node
		case r.nodeEvents <- event.GenericEvent{Object: &kbgpv1.BGPNodeConfig{ObjectMeta: metav1.ObjectMeta{Name: c.NodeName}}}:
		default:
		}
	}
	r.secrets = newSecretWatch(c.Clientset, c.Namespace, reconcileNode)
	r.kernel = &kernelWatch{logger: c.Logger, neighbours: r.ifaces, gateways: r.gateways, changed: reconcileNode}
	stopOnExit := manager.RunnableFunc(func(ctx context.Context) error {
		go r.kernel.run(ctx)
		<-ctx.Done()
		r.secrets.Stop()
		r.adverts.stop()
		return nil
	})
	if err := mgr.Add(stopOnExit); err != nil {
		return nil, err
	}
	return r, r.setup(mgr)
}

// DrainRemaining is how much longer, at now, the node's graceful-shutdown paths must
// stay out before its sessions may close (0: the node is not being drained).
func (r *Reconciler) DrainRemaining(now time.Time) time.Duration { return r.drain.remaining(now) }

// request is one unit of the node's work. Every configuration kind maps to the whole
// node, so a burst of them is one full reconcile; a Service or EndpointSlice event maps
// to its Service, reconciled on its own at the cost of that Service (O(change)); a
// change of what a Node or the ServiceCIDRs reserve (intent.Reserved) re-decides the
// Services claiming those addresses.
type request struct {
	kind requestKind
	// service is the Service of a serviceRequest.
	service types.NamespacedName
	// node is the Node of a reservedNode request.
	node string
}

type requestKind uint8

const (
	wholeNode requestKind = iota
	oneService
	reservedNode
	reservedServiceCIDRs
	// heldService is a Service's turn after the pacer held back its weight change
	// (requeueHeld): a request of its own, so that it never merges with one of the
	// Service's events that a full build covered (coverage) and is dropped with it.
	heldService
)

// nodeRequest is the request of the whole node.
var nodeRequest = request{kind: wholeNode}

// serviceRequest is the request of one Service.
func serviceRequest(key types.NamespacedName) request { return request{kind: oneService, service: key} }

// controllerName names the node's controller in metrics and logs.
const controllerName = "bgpnodeconfig-agent"

// setup registers the controller. The agent's own Node is watched for the changes that
// alter what it announces — cordon above all, which starts graceful shutdown — and read
// fresh by nodeGetter after one. Every Node, and every ServiceCIDR, is watched for the
// addresses it reserves (reconcileReserved).
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
	// Every request an event makes is numbered (coverage.event), so that one a full
	// build has covered since is dropped.
	toNode := r.coverage.handler(func(client.Object) []request {
		return []request{nodeRequest}
	})
	toService := r.coverage.handler(func(o client.Object) []request {
		return []request{serviceRequest(types.NamespacedName{Namespace: o.GetNamespace(), Name: o.GetName()})}
	})
	nodeChanged := r.coverage.handler(func(client.Object) []request {
		r.nodeChanged.Store(true)
		return []request{nodeRequest}
	})
	toReservedNode := r.coverage.handler(func(o client.Object) []request {
		return []request{{kind: reservedNode, node: o.GetName()}}
	})
	toServiceCIDRs := r.coverage.handler(func(client.Object) []request {
		return []request{{kind: reservedServiceCIDRs}}
	})
	own := predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetName() == r.nodeName })
	sliceToService := r.coverage.handler(func(o client.Object) []request {
		if svc, ok := intent.EndpointSliceService(o.(*discoveryv1.EndpointSlice)); ok {
			return []request{serviceRequest(svc)}
		}
		return nil
	})
	return builder.TypedControllerManagedBy[request](mgr).
		Named(controllerName).
		WithOptions(controller.TypedOptions[request]{MaxConcurrentReconciles: 1}).
		// The agent's own status writes must not rebuild everything: only spec changes
		// (a new generation) reconcile. Status is read when reconciling anyway. The
		// cache holds this node's BGPNodeConfig only.
		Watches(&kbgpv1.BGPNodeConfig{}, toNode, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Watches(&kbgpv1.BGPPeerConfig{}, toNode).
		Watches(&kbgpv1.BGPAdvertisement{}, toNode).
		Watches(&kbgpv1.LoadBalancerIPPool{}, toNode, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		WatchesRawSource(source.TypedChannel(r.nodeEvents, toNode)).
		Watches(&corev1.Node{}, nodeChanged, builder.WithPredicates(own, nodeMatters)).
		Watches(&corev1.Node{}, toReservedNode, builder.WithPredicates(reservationsChanged)).
		WatchesRawSource(source.TypedChannel(r.cidrEvents, toServiceCIDRs)).
		Watches(&corev1.Service{}, toService).
		Watches(&discoveryv1.EndpointSlice{}, sliceToService).
		// No events: it keeps the queue, for the Services whose weight change waits
		// (requeueHeld).
		WatchesRawSource(source.TypedFunc[request](func(_ context.Context, q workqueue.TypedRateLimitingInterface[request]) error {
			r.queue.Store(&q)
			return nil
		})).
		Complete(metrics.InstrumentTyped(reconcile.TypedFunc[request](r.reconcile)))
}
