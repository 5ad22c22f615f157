package agent

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/contract"
	"kbgp.io/kbgp/internal/speakers"
)

// FieldManager is the agent's server-side-apply identity on BGPNodeConfig status.
const FieldManager = "kbgp-agent"

// cacheSyncTimeout is how long the controller waits for its caches: in effect for
// ever (a year), see Options.RestoreAfter.
const cacheSyncTimeout = 365 * 24 * time.Hour

// stopTimeout bounds the BGP shutdown after the signal: GoBGP sends its NOTIFICATIONs
// (or none, for graceful restart) within it.
const stopTimeout = 10 * time.Second

// Options configure an agent.
type Options struct {
	NodeName  string
	Namespace string
	// MetricsAddress and HealthProbeAddress are listen addresses; "0" disables.
	MetricsAddress     string
	HealthProbeAddress string
	// PprofAddress serves Go's /debug/pprof; empty: off.
	PprofAddress string
	// MetricsSecure serves metrics over HTTPS (a self-signed certificate) to callers the
	// API server authenticates (TokenReview) and authorises (SubjectAccessReview).
	MetricsSecure bool
	Routers       bgp.RouterFactory
	Logger        *slog.Logger
	// StatusInterval is the least time between two status writes (default 5 s: at most
	// 0.2 writes/s per node while sessions change, docs/design/README.md B6).
	StatusInterval time.Duration
	// StateDir keeps node-local state across agent restarts (the graceful-restart
	// marker, the checkpoint of the applied state); empty: none, every start is a
	// fresh one.
	StateDir string
	// RestoreAfter is how long a start waits for the API server's state before it
	// restores the speakers from the checkpoint (default 5 s).
	RestoreAfter time.Duration
	// ReadinessWait bounds how long readiness waits for the sessions that were up
	// before the start (default 2 minutes).
	ReadinessWait time.Duration
	// PodNetwork, when set, makes the agent the node's pod network.
	PodNetwork *PodNetwork
}

// Run runs the agent until ctx ends, then stops the BGP speakers: peers that
// negotiated graceful restart get no NOTIFICATION and keep our routes as stale while
// the agent restarts; the others get a Cease.
func Run(ctx context.Context, cfg *rest.Config, o Options) error {
	if o.NodeName == "" {
		return errors.New("agent: node name is required")
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.StateDir != "" {
		// Without it every checkpoint and marker write fails and graceful restart is
		// silently off: created here, or no start at all.
		if err := ensureStateDir(o.StateDir); err != nil {
			return err
		}
	}
	scheme, err := contract.NewScheme()
	if err != nil {
		return err
	}
	own := fields.OneTermEqualSelector("metadata.name", o.NodeName)
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 scheme,
		MapperProvider:         mapperProvider(scheme),
		NewCache:               newStopAwareCache(ctx.Done()),
		Logger:                 logr.FromSlogHandler(o.Logger.Handler()),
		Metrics:                metricsOptions(o),
		HealthProbeBindAddress: o.HealthProbeAddress,
		PprofBindAddress:       o.PprofAddress,
		// Several agents share one process in `kbgp-lab` and in tests; each has its
		// own manager and reconciler.
		// The controller waits for its caches as long as the API server stays away: the
		// speakers run from the checkpoint meanwhile, and exiting would only stop them.
		Controller: config.Controller{SkipNameValidation: ptr.To(true), CacheSyncTimeout: cacheSyncTimeout},
		Cache:      cacheOptions(own),
	})
	if err != nil {
		return fmt.Errorf("create agent manager: %w", err)
	}
	// Liveness never depends on the API server: while it is unreachable the agent keeps
	// its sessions as they are and must not be restarted for it.
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return err
	}
	ready := newReadiness(time.Now(), o.ReadinessWait)
	if err := mgr.AddReadyzCheck("sessions", ready.Check); err != nil {
		return err
	}
	writer := newStatusWriter(mgr.GetClient(), o.NodeName, o.StatusInterval, o.Logger)
	var podNet *podNetworkReconciler
	if o.PodNetwork != nil {
		podNet = newPodNetworkReconciler(mgr.GetClient(), o.NodeName, *o.PodNetwork, o.Logger)
		if setter, ok := o.Routers.(bgp.RouteSinkSetter); ok {
			o.Routers = setter.WithRouteSink(podNet.routes)
		}
	}
	set := speakers.New(o.Routers, o.Logger, writer.Trigger, 0)
	// A wedged speaker (a call that outlived its bound), unlike an unreachable API
	// server, fails liveness: only a restart cures it, and graceful restart keeps the
	// routes while the agent comes back.
	if err := mgr.AddHealthzCheck("speakers", func(*http.Request) error { return set.Healthy() }); err != nil {
		return err
	}
	writer.speakers = set
	recorder := mgr.GetEventRecorderFor("kbgp-agent")
	writer.recorder = recorder
	writer.readiness = ready
	clientset, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("create agent clientset: %w", err)
	}
	secretEvents := make(chan event.GenericEvent, 1)
	secrets := newSecretWatch(clientset, o.Namespace, func() {
		select { // one pending event is enough: it reconciles the whole node
		case secretEvents <- event.GenericEvent{Object: &kbgpv1.BGPNodeConfig{ObjectMeta: metav1.ObjectMeta{Name: o.NodeName}}}:
		default:
		}
	})
	defer secrets.Stop()
	r := &reconciler{
		client: mgr.GetClient(), nodeName: o.NodeName, namespace: o.Namespace,
		speakers: set, status: writer, logger: o.Logger,
		nodes:     &nodeGetter{reader: mgr.GetAPIReader(), name: o.NodeName},
		routerIDs: &routerIDs{nodeName: o.NodeName, recorder: recorder, logger: o.Logger},
		vrfs:      &vrfDevices{recorder: recorder, logger: o.Logger},
		readiness: ready, secrets: secrets, secretEvents: secretEvents,
		gate: &restoreGate{},
	}
	bootID := currentBootID()
	var start startState
	if o.StateDir != "" {
		start = readStartState(o.StateDir, o.NodeName, bootID, time.Now(), o.Logger)
		r.checkpoints = newCheckpointWriter(o.StateDir, o.NodeName, bootID, set.Applied, start.raw, o.Logger)
		if err := mgr.Add(r.checkpoints); err != nil {
			return err
		}
	}
	if !start.restartUntil.IsZero() {
		o.Logger.Info("restarting as a graceful-restart speaker: forwarding state preserved", "until", start.restartUntil)
		set.ResumeAfterGracefulRestart(start.restartUntil)
	}
	if err := r.setup(mgr); err != nil {
		return err
	}
	if podNet != nil {
		if err := podNet.setup(mgr); err != nil {
			return err
		}
		if err := mgr.Add(&clusterPodCIDRs{clientset: clientset, nodeName: o.NodeName, routes: podNet.routes}); err != nil {
			return err
		}
	}
	if err := mgr.Add(writer); err != nil {
		return err
	}
	lease := &leaseRenewer{reader: mgr.GetAPIReader(), writer: mgr.GetClient(), namespace: o.Namespace, node: o.NodeName, logger: o.Logger,
		renewed: writer.reassertIfMarkedStale}
	if err := mgr.Add(lease); err != nil {
		return err
	}
	restoreCtx, stopRestore := context.WithCancel(ctx)
	restored := make(chan struct{})
	go func() {
		defer close(restored)
		restoreWhenAPIUnreachable(restoreCtx, start, cmp.Or(o.RestoreAfter, defaultRestoreAfter), r.gate, set, o.Logger)
	}()
	runErr := mgr.Start(ctx)
	stopRestore()
	<-restored
	if wait := r.drain.remaining(time.Now()); wait > 0 {
		// The node is drained: its graceful-shutdown paths stay out until the routers
		// have had the peers' waitSeconds to move the traffic.
		o.Logger.Info("node cordoned: keeping the graceful-shutdown paths out before stopping", "wait", wait.String())
		time.Sleep(wait)
	}
	stopCtx, cancel := context.WithTimeout(context.Background(), stopTimeout)
	defer cancel()
	writer.markShutdown(stopCtx)
	o.Logger.Info("stopping BGP speakers", "gracefulRestart", true)
	applied := set.Applied()
	stopErr := set.Stop(stopCtx, true)
	if stopErr == nil && o.StateDir != "" {
		if err := writeRestartMarker(o.StateDir, applied, time.Now(), o.NodeName, bootID); err != nil {
			o.Logger.Warn("graceful-restart marker not written: the next start is a fresh one", "error", err)
		}
	}
	return errors.Join(runErr, stopErr)
}

// metricsOptions serve /metrics plainly, or behind controller-runtime's authentication
// and authorisation filter.
func metricsOptions(o Options) metricsserver.Options {
	opts := metricsserver.Options{BindAddress: o.MetricsAddress}
	if o.MetricsSecure {
		opts.SecureServing = true
		opts.FilterProvider = filters.WithAuthenticationAndAuthorization
	}
	return opts
}
