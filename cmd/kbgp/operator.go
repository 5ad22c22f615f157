package main

import (
	"os"

	"github.com/spf13/cobra"
	ctrl "sigs.k8s.io/controller-runtime"

	"kbgp.io/kbgp/internal/operator"
)

// operatorOptions are the flags of `kbgp operator`.
type operatorOptions struct {
	client                  clientOptions
	metricsAddress          string
	healthProbeAddress      string
	leaderElect             bool
	leaderElectionNamespace string
	agentNamespace          string
	workers                 int
	lbIPAMWorkers           int
}

func newOperatorCommand() *cobra.Command {
	var o operatorOptions
	cmd := &cobra.Command{
		Use:   "operator",
		Short: "Render one BGPNodeConfig per node from the cluster-wide configuration",
		Long: `The operator watches BGPClusterConfigs, BGPNodeConfigOverrides and Nodes and
writes BGPNodeConfig/<node> for every node a cluster config selects, owned by the
Node. It reports conflicts and missing references as conditions on the
BGPClusterConfig. Once a LoadBalancerIPPool exists it also gives LoadBalancer
Services their addresses (status.loadBalancer.ingress) from the pools. Run two
replicas with --leader-elect.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runOperator(cmd, o) },
	}
	f := cmd.Flags()
	o.client.addFlags(f)
	f.StringVar(&o.metricsAddress, "metrics-bind-address", ":8080", "address of the Prometheus /metrics endpoint; 0 disables it")
	f.StringVar(&o.healthProbeAddress, "health-probe-bind-address", ":8081", "address of the /healthz and /readyz endpoints")
	f.BoolVar(&o.leaderElect, "leader-elect", false, "elect a leader through a Lease so only one replica writes")
	f.StringVar(&o.leaderElectionNamespace, "leader-election-namespace", "", "namespace of the leader-election Lease (default $"+envPodNamespace+", else "+defaultNamespace+")")
	f.StringVar(&o.agentNamespace, "agent-namespace", "", "namespace of the agents' liveness Leases, watched to mark a silent agent's node Ready=Unknown (default $"+envPodNamespace+", else "+defaultNamespace+")")
	f.IntVar(&o.workers, "node-workers", 32, "nodes rendered in parallel (each is one API write at most)")
	f.IntVar(&o.lbIPAMWorkers, "lb-ipam-workers", operator.DefaultLoadBalancerIPAMWorkers, "LoadBalancer Services whose address status writes overlap (the allocation itself is serial)")
	return cmd
}

func runOperator(cmd *cobra.Command, o operatorOptions) error {
	setupLogging()
	cfg, err := o.client.restConfig()
	if err != nil {
		return err
	}
	ns, agentNS := o.leaderElectionNamespace, o.agentNamespace
	if ns == "" {
		ns = namespaceFromEnv()
	}
	if agentNS == "" {
		agentNS = namespaceFromEnv()
	}
	mgr, err := operator.NewManager(cfg, operator.Options{
		MetricsAddress:          o.metricsAddress,
		HealthProbeAddress:      o.healthProbeAddress,
		LeaderElect:             o.leaderElect,
		LeaderElectionNamespace: ns,
		AgentNamespace:          agentNS,
		NodeConfigWorkers:       o.workers,
		LoadBalancerIPAMWorkers: o.lbIPAMWorkers,
	})
	if err != nil {
		return err
	}
	return mgr.Start(ctrl.SetupSignalHandler())
}

func namespaceFromEnv() string {
	if ns := os.Getenv(envPodNamespace); ns != "" {
		return ns
	}
	return defaultNamespace
}
