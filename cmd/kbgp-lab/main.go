// Command kbgp-lab runs the whole system on this machine: a real API server (envtest),
// the operator, one agent per sample node and an upstream router (embedded GoBGP or
// FRR). It is a binary of its own so that kbgp, which is also the CNI plugin the
// runtime executes for every pod, links no envtest, lab or FRR driver.
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"
	ctrl "sigs.k8s.io/controller-runtime"

	"kbgp.io/kbgp/internal/lab"
)

func main() {
	if err := newLabCommand().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "kbgp-lab:", err)
		os.Exit(1)
	}
}

func newLabCommand() *cobra.Command {
	o := lab.Options{Out: os.Stdout}
	cmd := &cobra.Command{
		Use:   "kbgp-lab",
		Short: "Run the whole system on this machine: API server, operator, agents and an upstream router",
		Long: `The lab starts a real kube-apiserver and etcd, installs the CRDs, creates sample
Nodes, configs and LoadBalancer Services, runs the operator and one agent per node
on loopback addresses and an upstream BGP router, then prints the node status and
the routes the router received. It needs no root: the sessions run on 127.0.1.N.

The API server binaries come from hack/test-deps.sh ($KUBEBUILDER_ASSETS, or the
cache it fills); 'make lab' builds them when missing.`,
		Args:          cobra.NoArgs,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cmd.SilenceUsage = true
			return lab.Run(ctrl.SetupSignalHandler(), o)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.Once, "once", false, "print the status and exit: 0 only if every session is Established and every expected route arrived")
	f.StringVar(&o.Router, "router", "gobgp", "upstream router: gobgp (embedded) or frr (FRR's bgpd, when installed; needs root)")
	f.DurationVar(&o.Timeout, "timeout", 2*time.Minute, "how long to wait for every session and route")
	f.StringVar(&o.Dir, "dir", "", "directory for the kubeconfig and the components' log (default: a temporary directory, removed at exit)")
	return cmd
}
