package main

import "github.com/spf13/cobra"

// operatorOptions are the flags of `kbgp operator`.
type operatorOptions struct {
	kubeconfig         string
	metricsAddress     string
	healthProbeAddress string
	leaderElect        bool
}

func newOperatorCommand() *cobra.Command {
	var o operatorOptions
	cmd := &cobra.Command{
		Use:   "operator",
		Short: "Render one BGPNodeConfig per node from the cluster-wide configuration",
		Long: `The operator watches BGPClusterConfigs, BGPNodeConfigOverrides and Nodes and
writes BGPNodeConfig/<node> for every node a cluster config selects, owned by the
Node. It reports conflicts and missing references as conditions on the
BGPClusterConfig. Run two replicas with --leader-elect.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return errNotYetAvailable("kbgp operator") },
	}
	f := cmd.Flags()
	f.StringVar(&o.kubeconfig, "kubeconfig", "", "path to a kubeconfig; in-cluster configuration when empty")
	f.StringVar(&o.metricsAddress, "metrics-bind-address", ":8080", "address of the Prometheus /metrics endpoint; 0 disables it")
	f.StringVar(&o.healthProbeAddress, "health-probe-bind-address", ":8081", "address of the /healthz and /readyz endpoints")
	f.BoolVar(&o.leaderElect, "leader-elect", false, "elect a leader through a Lease so only one replica writes")
	return cmd
}
