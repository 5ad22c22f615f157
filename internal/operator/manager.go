package operator

import (
	"fmt"
	"maps"
	"slices"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"kbgp.io/kbgp/internal/contract"
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
	// LoadBalancerIPAMWorkers is how many Services' address status writes overlap
	// (default 32); the allocation itself stays one Service at a time.
	LoadBalancerIPAMWorkers int
	// AgentNamespace is where the agents renew their Leases; the operator marks a node's
	// Ready Unknown (AgentNotReporting) when its agent's Lease expires. Empty: agents'
	// liveness is not watched.
	AgentNamespace string
	// InProcessReplica lets several operators run in one process (the lab, tests of
	// leader handover) by skipping controller-runtime's unique-controller-name check.
	InProcessReplica bool
}

// NewManager builds the operator: a controller-runtime manager with its six
// controllers (agent liveness only with an agent namespace), each registered by the
// SetupWithManager of its own file, health probes and, when asked, leader election.
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
		Cache:                         operatorCache(o.AgentNamespace),
	})
	if err != nil {
		return nil, fmt.Errorf("create manager: %w", err)
	}
	c, recorder := mgr.GetClient(), mgr.GetEventRecorderFor(FieldManager)
	ipam := &LoadBalancerIPAM{Client: c, APIReader: mgr.GetAPIReader(), Recorder: recorder, Workers: o.LoadBalancerIPAMWorkers}
	controllers := map[string]func(ctrl.Manager) error{
		"node config":             (&NodeConfigReconciler{Client: c, Workers: o.NodeConfigWorkers}).SetupWithManager,
		"cluster config":          (&ClusterConfigReconciler{Client: c, Recorder: recorder}).SetupWithManager,
		"load-balancer addresses": ipam.SetupServiceController,
		"load-balancer pools":     ipam.SetupPoolController,
		"peering policy":          (&PeeringPolicyReconciler{Client: c, Scheme: scheme}).SetupWithManager,
	}
	if o.AgentNamespace != "" {
		controllers["agent liveness"] = (&AgentLivenessReconciler{Client: c, Recorder: recorder}).SetupWithManager
	}
	for _, name := range slices.Sorted(maps.Keys(controllers)) {
		if err := controllers[name](mgr); err != nil {
			return nil, fmt.Errorf("set up %s controller: %w", name, err)
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

// operatorCache keeps of Nodes what the operator reads (stripNode) and watches Leases
// only where the agents renew theirs.
func operatorCache(agentNamespace string) cache.Options {
	byObject := map[client.Object]cache.ByObject{&corev1.Node{}: {Transform: stripNode}}
	if agentNamespace != "" {
		byObject[&coordinationv1.Lease{}] = cache.ByObject{Namespaces: map[string]cache.Config{agentNamespace: {}}}
	}
	return cache.Options{ByObject: byObject}
}

// nonZero turns a zero duration into nil so the manager applies its default.
func nonZero(d time.Duration) *time.Duration {
	if d == 0 {
		return nil
	}
	return &d
}
