package main

import "github.com/spf13/cobra"

func newLabCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "lab",
		Short: "Run the whole system on this machine: API server, operator, agents and an upstream router",
		Long: `The lab starts a real kube-apiserver and etcd, installs the CRDs, creates sample
Nodes, configs and LoadBalancer Services, runs the operator and one agent per node
on loopback addresses and an upstream BGP router, then prints the node status and
the routes the router received.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return errNotYetAvailable("kbgp lab") },
	}
}
