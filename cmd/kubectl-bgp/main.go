// Command kubectl-bgp is the kubectl plugin of kbgp (`kubectl bgp ...`). It reads the
// kbgp objects with the user's kubeconfig and answers the three questions an operator
// of a BGP cluster asks first: which sessions are up (peers), which nodes are healthy
// (status), and why a node runs what it runs (explain). It only gets and lists; it
// never writes and never execs into pods, so read-only RBAC is enough.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

func main() {
	if err := newRootCommand().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "kubectl-bgp:", err)
		os.Exit(1)
	}
}

func newRootCommand() *cobra.Command { return newRootCommandWith(&kubeOptions{}) }

// newRootCommandWith builds the command tree around kube, which tests give a reader
// that serves constructed objects.
func newRootCommandWith(kube *kubeOptions) *cobra.Command {
	root := &cobra.Command{
		Use:   "kubectl-bgp",
		Short: "Inspect kbgp: BGP sessions, node status and why a node runs its configuration",
		Long: `kubectl bgp reads the kbgp objects of the current cluster (BGPNodeConfig,
BGPClusterConfig, BGPNodeConfigOverride, BGPPeerConfig, BGPAdvertisement) and
summarises them. It only reads; nothing is changed.`,
		Annotations: map[string]string{
			// kubectl runs the binary kubectl-bgp; usage lines should read "kubectl bgp".
			cobra.CommandDisplayNameAnnotation: "kubectl bgp",
		},
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.CompletionOptions.DisableDefaultCmd = true
	kube.addFlags(root.PersistentFlags())
	root.AddCommand(newPeersCommand(kube), newStatusCommand(kube), newRoutesCommand(kube), newExplainCommand(kube))
	return root
}
