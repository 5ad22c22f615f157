package operator

import (
	"context"
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/contract"
	"kbgp.io/kbgp/internal/metrics"
)

// LeaderElectionID names the Lease the operator replicas compete for.
const LeaderElectionID = "kbgp-operator"

// Options configure the operator manager.
type Options struct {
	MetricsAddress          string
	HealthProbeAddress      string
	LeaderElect             bool
	LeaderElectionNamespace string
	// LeaseDuration, RenewDeadline and RetryPeriod tune leader election; zero values
	// take controller-runtime's defaults (15 s, 10 s, 2 s).
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	// NodeConfigWorkers is how many nodes are rendered in parallel.
	NodeConfigWorkers int
	// AgentNamespace is where the agents renew their Leases; the operator marks a node's
	// Ready Unknown (AgentNotReporting) when its agent's Lease expires. Empty: agents'
	// liveness is not watched.
	AgentNamespace string
	// InProcessReplica lets several operators run in one process (the lab, tests of
	// leader handover) by skipping controller-runtime's unique-controller-name check.
	InProcessReplica bool
}

// NewManager builds the operator: a controller-runtime manager with the node config and
// cluster config controllers, health probes and, when asked, leader election.
func NewManager(cfg *rest.Config, o Options) (ctrl.Manager, error) {
	scheme, err := contract.NewScheme()
	if err != nil {
		return nil, fmt.Errorf("build scheme: %w", err)
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                        scheme,
		Metrics:                       metricsserver.Options{BindAddress: o.MetricsAddress},
		HealthProbeBindAddress:        o.HealthProbeAddress,
		LeaderElection:                o.LeaderElect,
		LeaderElectionID:              LeaderElectionID,
		LeaderElectionNamespace:       o.LeaderElectionNamespace,
		LeaderElectionReleaseOnCancel: true,
		LeaseDuration:                 nonZero(o.LeaseDuration),
		RenewDeadline:                 nonZero(o.RenewDeadline),
		RetryPeriod:                   nonZero(o.RetryPeriod),
		Controller:                    config.Controller{SkipNameValidation: &o.InProcessReplica},
		Cache:                         leaseCache(o.AgentNamespace),
	})
	if err != nil {
		return nil, fmt.Errorf("create manager: %w", err)
	}
	if err := setupControllers(mgr, max(o.NodeConfigWorkers, 1)); err != nil {
		return nil, err
	}
	if err := setupLoadBalancerIPAM(mgr); err != nil {
		return nil, err
	}
	err = ctrl.NewControllerManagedBy(mgr).
		Named("peeringpolicy").
		For(&kbgpv1.BGPPeeringPolicy{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		// Any change to a generated object: an edit to put back, or the cluster
		// config's conditions that Ready mirrors.
		Owns(&kbgpv1.BGPClusterConfig{}).
		Owns(&kbgpv1.BGPPeerConfig{}).
		Owns(&kbgpv1.BGPAdvertisement{}).
		Complete(metrics.Instrument(&PeeringPolicyReconciler{Client: mgr.GetClient(), Scheme: scheme}))
	if err != nil {
		return nil, fmt.Errorf("set up peering policy controller: %w", err)
	}
	if o.AgentNamespace != "" {
		err := ctrl.NewControllerManagedBy(mgr).
			Named("agentliveness").
			For(&coordinationv1.Lease{}).
			Complete(metrics.Instrument(&AgentLivenessReconciler{Client: mgr.GetClient(), Recorder: mgr.GetEventRecorderFor(FieldManager)}))
		if err != nil {
			return nil, fmt.Errorf("set up agent liveness controller: %w", err)
		}
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return nil, fmt.Errorf("add health check: %w", err)
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		return nil, fmt.Errorf("add ready check: %w", err)
	}
	return mgr, nil
}

func setupControllers(mgr ctrl.Manager, workers int) error {
	ctx := context.Background()
	if err := mgr.GetFieldIndexer().IndexField(ctx, &kbgpv1.BGPNodeConfigOverride{}, overrideNodeRefIndex, indexOverrideNodeRef); err != nil {
		return fmt.Errorf("index overrides by node: %w", err)
	}
	c := mgr.GetClient()
	err := ctrl.NewControllerManagedBy(mgr).
		Named("nodeconfig").
		WithOptions(controller.Options{MaxConcurrentReconciles: workers}).
		For(&corev1.Node{}, builder.OnlyMetadata, builder.WithPredicates(nodeMembershipChanged)).
		Watches(&kbgpv1.BGPNodeConfig{}, &handler.EnqueueRequestForObject{}, builder.WithPredicates(nodeConfigWritten)).
		Watches(&kbgpv1.BGPClusterConfig{}, handler.EnqueueRequestsFromMapFunc(nodesOfClusterConfig(c)), builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Watches(&kbgpv1.BGPNodeConfigOverride{}, overrideNodes, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Complete(metrics.Instrument(&NodeConfigReconciler{Client: c}))
	if err != nil {
		return fmt.Errorf("set up node config controller: %w", err)
	}
	err = ctrl.NewControllerManagedBy(mgr).
		Named("clusterconfig").
		Watches(&kbgpv1.BGPClusterConfig{}, handler.EnqueueRequestsFromMapFunc(allClusterConfigs(c)), builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		WatchesMetadata(&corev1.Node{}, handler.EnqueueRequestsFromMapFunc(allClusterConfigs(c)), builder.WithPredicates(nodeMembershipChanged)).
		Watches(&kbgpv1.BGPNodeConfig{}, handler.EnqueueRequestsFromMapFunc(clusterConfigOfNodeConfig), builder.WithPredicates(resolvedRouterIDsChanged)).
		WatchesMetadata(&kbgpv1.BGPPeerConfig{}, handler.EnqueueRequestsFromMapFunc(allClusterConfigs(c)), builder.WithPredicates(predicate.Funcs{
			UpdateFunc: func(event.UpdateEvent) bool { return false },
		})).
		Complete(metrics.Instrument(&ClusterConfigReconciler{Client: c, Recorder: mgr.GetEventRecorderFor(FieldManager)}))
	if err != nil {
		return fmt.Errorf("set up cluster config controller: %w", err)
	}
	return nil
}

// leaseCache watches Leases only where the agents renew theirs.
func leaseCache(agentNamespace string) cache.Options {
	if agentNamespace == "" {
		return cache.Options{}
	}
	return cache.Options{ByObject: map[client.Object]cache.ByObject{
		&coordinationv1.Lease{}: {Namespaces: map[string]cache.Config{agentNamespace: {}}},
	}}
}

// nonZero turns a zero duration into nil so the manager applies its default.
func nonZero(d time.Duration) *time.Duration {
	if d == 0 {
		return nil
	}
	return &d
}

// lbipamWorkers is how many Services' status writes overlap; the allocation itself is
// one at a time.
const lbipamWorkers = 8

// setupLoadBalancerIPAM adds the address allocator for LoadBalancer Services and the
// status of the pools it allocates from. Only Services that are or were of type
// LoadBalancer reach its queue.
func setupLoadBalancerIPAM(mgr ctrl.Manager) error {
	c := mgr.GetClient()
	ipam := &LoadBalancerIPAM{Client: c, APIReader: mgr.GetAPIReader(), Recorder: mgr.GetEventRecorderFor(FieldManager)}
	err := ctrl.NewControllerManagedBy(mgr).
		Named("lbipam").
		For(&corev1.Service{}, builder.WithPredicates(loadBalancerService)).
		Watches(&kbgpv1.LoadBalancerIPPool{}, handler.EnqueueRequestsFromMapFunc(loadBalancerServices(c)), builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		WatchesRawSource(source.Func(ipam.startServiceQueue)).
		WithOptions(controller.Options{MaxConcurrentReconciles: lbipamWorkers}).
		Complete(metrics.Instrument(reconcile.Func(ipam.ReconcileService)))
	if err != nil {
		return fmt.Errorf("set up load-balancer address controller: %w", err)
	}
	err = ctrl.NewControllerManagedBy(mgr).
		Named("lbpoolstatus").
		For(&kbgpv1.LoadBalancerIPPool{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		WatchesRawSource(source.Func(ipam.startPoolQueue)).
		Complete(metrics.Instrument(reconcile.Func(ipam.ReconcilePool)))
	if err != nil {
		return fmt.Errorf("set up load-balancer pool status controller: %w", err)
	}
	return nil
}
