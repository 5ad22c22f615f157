package agent

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"kbgp.io/kbgp/internal/adjribapi"
	"kbgp.io/kbgp/internal/agent/adjrib"
	"kbgp.io/kbgp/internal/agent/nodebgp"
	"kbgp.io/kbgp/internal/agent/report"
	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/checkpoint"
	"kbgp.io/kbgp/internal/contract"
	"kbgp.io/kbgp/internal/metrics"
	"kbgp.io/kbgp/internal/podnet/controller"
	"kbgp.io/kbgp/internal/podnet/routes"
	"kbgp.io/kbgp/internal/speakers"
	"kbgp.io/kbgp/internal/status"
)

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
	// MetricsSecure serves metrics, and the routes of adjribapi.Path beside them, over
	// HTTPS (a self-signed certificate) to callers the API server authenticates
	// (TokenReview) and authorises (SubjectAccessReview: get on the non-resource URL,
	// /metrics or /bgp/routes).
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
	// PodNetwork, when set, makes the agent the node's pod network (and implies
	// KernelRoutes).
	PodNetwork *controller.Config
	// KernelRoutes installs what the peers' import policies accept into the main
	// routing table of the agent's network namespace. Off where that namespace is not
	// the node's (agents in the process of a test or kbgp-lab): import policies then
	// install nothing.
	KernelRoutes bool
}

// Run runs the agent until ctx ends, then stops the BGP speakers: peers that
// negotiated graceful restart get no NOTIFICATION and keep our routes as stale while
// the agent restarts; the others get a Cease.
func Run(ctx context.Context, cfg *rest.Config, o Options) error {
	if o.NodeName == "" {
		return errors.New("agent: node name is required")
	}
	o.Logger = cmp.Or(o.Logger, slog.Default())
	mgr, err := newManager(ctx, cfg, o)
	if err != nil {
		return err
	}
	clientset, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("create agent clientset: %w", err)
	}
	sessionsChanged := report.NewSignal()
	installer, podNet, routers := kernelRoutes(mgr, o, sessionsChanged.Fire)
	set := speakers.New(routers, o.Logger, sessionsChanged.Fire, 0)
	// The routes each peer is sent and sent it, on the metrics listener behind the
	// same filter as /metrics (docs/status.md), the received ones with their state in
	// the kernel when the agent installs routes.
	var kernel adjrib.Kernel
	if installer != nil {
		kernel = installer
	}
	if err := mgr.AddMetricsServerExtraHandler(adjribapi.Path, adjrib.Handler(set, kernel, o.NodeName)); err != nil {
		return err
	}
	restart, err := checkpoint.Open(o.StateDir, o.NodeName, set, metrics.SetCheckpointWriteFailing, o.Logger)
	if err != nil {
		return err
	}
	recorder := mgr.GetEventRecorderFor("kbgp-agent")
	ready := report.NewReadiness(time.Now(), o.ReadinessWait)
	writer := report.NewStatusWriter(report.StatusConfig{Client: mgr.GetClient(), NodeName: o.NodeName, Interval: o.StatusInterval,
		Logger: o.Logger, Speakers: set, Recorder: recorder, Readiness: ready, Changed: sessionsChanged, ImportCounts: importCounts(installer)})
	node, err := nodebgp.New(mgr, nodebgp.Config{NodeName: o.NodeName, Namespace: o.Namespace, Speakers: set, Status: writer,
		Readiness: ready, Restart: restart, Clientset: clientset, Recorder: recorder, Logger: o.Logger})
	if err != nil {
		return err
	}
	lease := report.NewLeaseRenewer(mgr.GetAPIReader(), mgr.GetClient(), o.Namespace, o.NodeName, writer.ReassertIfMarkedStale, o.Logger)
	if err := register(mgr, ready, set, podNet, clientset, restart, writer, lease); err != nil {
		return err
	}
	stopRestore := restart.RestoreUnlessLive(ctx, o.RestoreAfter)
	runErr := mgr.Start(ctx)
	stopRestore()
	return errors.Join(runErr, shutdown(node, writer, set, restart, o.Logger))
}

// register adds the health checks, the pod network (when on) and the runnables to mgr.
// Liveness never depends on the API server: while it is unreachable the agent keeps
// its sessions as they are and must not be restarted for it. A wedged speaker (a call
// that outlived its bound), unlike an unreachable API server, fails liveness: only a
// restart cures it, and graceful restart keeps the routes while the agent comes back.
func register(mgr ctrl.Manager, ready *report.Readiness, set *speakers.Set, podNet *controller.Reconciler, clientset kubernetes.Interface,
	runnables ...manager.Runnable) error {
	if err := errors.Join(
		mgr.AddHealthzCheck("ping", healthz.Ping),
		mgr.AddReadyzCheck("sessions", ready.Check),
		mgr.AddHealthzCheck("speakers", func(*http.Request) error { return set.Healthy() }),
	); err != nil {
		return err
	}
	if podNet != nil {
		if err := podNet.SetupWithManager(mgr, clientset); err != nil {
			return err
		}
	}
	for _, r := range runnables {
		if err := mgr.Add(r); err != nil {
			return err
		}
	}
	return nil
}

// shutdown is the stop after the manager returned. A drained node (cordoned) keeps its
// graceful-shutdown paths out until the routers have had the peers' waitSeconds to move
// the traffic; then the status says the agent stopped (when no peer keeps its routes),
// the speakers stop as graceful-restart speakers, and the marker of that stop is left
// for the next start.
func shutdown(node *nodebgp.Reconciler, writer *report.StatusWriter, set *speakers.Set, restart *checkpoint.Restart, logger *slog.Logger) error {
	if wait := node.DrainRemaining(time.Now()); wait > 0 {
		logger.Info("node cordoned: keeping the graceful-shutdown paths out before stopping", "wait", wait.String())
		time.Sleep(wait)
	}
	stopCtx, cancel := context.WithTimeout(context.Background(), stopTimeout)
	defer cancel()
	writer.MarkShutdown(stopCtx)
	logger.Info("stopping BGP speakers", "gracefulRestart", true)
	applied := set.Applied()
	if err := set.Stop(stopCtx, true); err != nil {
		return err
	}
	restart.Stopped(applied)
	return nil
}

// kernelRoutes is the installer of what importing peers send into the node's kernel
// (nil: off), the node's pod network when the agent is it (nil: off), and the routers
// the speakers run, which report to the installer. changed is told when the installed
// routes change.
func kernelRoutes(mgr ctrl.Manager, o Options, changed func()) (*routes.Installer, *controller.Reconciler, bgp.RouterFactory) {
	if o.PodNetwork == nil && !o.KernelRoutes {
		return nil, nil, o.Routers
	}
	var pods *routes.PodNetwork
	if o.PodNetwork != nil {
		pods = &routes.PodNetwork{Ranges: o.PodNetwork.ClusterPodCIDRs}
	}
	var podNet *controller.Reconciler
	installer := routes.New(routes.Netlink(), pods, o.Logger, func() {
		changed()
		if podNet != nil {
			podNet.Recount()
		}
	})
	if o.PodNetwork != nil {
		podNet = controller.New(mgr.GetClient(), o.NodeName, *o.PodNetwork, installer, o.Logger)
	}
	metrics.SetPeerImports(func() []metrics.PeerImport {
		var out []metrics.PeerImport
		for peer, c := range installer.Counts() {
			out = append(out, metrics.PeerImport{Address: peer.String(), Installed: c.Installed, Rejected: c.Rejected})
		}
		return out
	})
	if setter, ok := o.Routers.(bgp.RouteSinkSetter); ok {
		return installer, podNet, setter.WithRouteSink(installer)
	}
	return installer, podNet, o.Routers
}

// importCounts are the installer's per-peer counts for the status (nil: no installer).
func importCounts(installer *routes.Installer) func() map[netip.Addr]status.ImportCount {
	if installer == nil {
		return nil
	}
	return func() map[netip.Addr]status.ImportCount {
		out := map[netip.Addr]status.ImportCount{}
		for peer, c := range installer.Counts() {
			out[peer] = status.ImportCount{Installed: c.Installed, Rejected: c.Rejected}
		}
		return out
	}
}

// newManager is the agent's controller-runtime manager: a cache of only what the agent
// reads (cacheOptions), a REST mapper that needs no API server, and the metrics,
// health and pprof endpoints.
func newManager(ctx context.Context, cfg *rest.Config, o Options) (ctrl.Manager, error) {
	scheme, err := contract.NewScheme()
	if err != nil {
		return nil, err
	}
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
		Cache:      cacheOptions(o.NodeName),
	})
	if err != nil {
		return nil, fmt.Errorf("create agent manager: %w", err)
	}
	return mgr, nil
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
