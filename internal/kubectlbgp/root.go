// Package kubectlbgp is the kubectl plugin of kbgp (`kubectl bgp ...`). It reads the
// kbgp objects with the user's kubeconfig and answers the questions an operator of a
// BGP cluster asks first: which sessions are up (peers), which nodes are healthy
// (status), what each peer is sent and sent it (routes, asked of the node's agent
// through the API server's pod proxy), and why a node runs what it runs (explain). It
// only gets and lists, and GETs through pods/proxy; it never writes, never execs into
// pods and never port-forwards. cmd/kubectl-bgp is its wiring.
package kubectlbgp

import (
	"github.com/spf13/cobra"
)

// NewRootCommand is the plugin's command tree, reading the cluster the user's
// kubeconfig and kubectl-style flags name.
func NewRootCommand() *cobra.Command { return newRootCommandWith(&kubeOptions{}) }

// newRootCommandWith builds the command tree around kube, which tests give a reader
// that serves constructed objects.
func newRootCommandWith(kube *kubeOptions) *cobra.Command {
	root := &cobra.Command{
		Use:   "kubectl-bgp",
		Short: "Inspect kbgp: BGP sessions, node status and why a node runs its configuration",
		Long: `kubectl bgp reads the kbgp objects of the current cluster (BGPNodeConfig,
BGPClusterConfig, BGPNodeConfigOverride, BGPPeerConfig, BGPAdvertisement) and
summarises them, and asks a node's agent, through the API server's pod proxy,
which routes each peer is sent and sent it. It only reads; nothing is changed.`,
		Annotations: map[string]string{
			// kubectl runs the binary kubectl-bgp; usage lines should read "kubectl bgp".
			cobra.CommandDisplayNameAnnotation: "kubectl bgp",
		},
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.CompletionOptions.DisableDefaultCmd = true
	kube.addFlags(root.PersistentFlags())
	root.AddCommand(newPeersCommand(kube), newStatusCommand(kube), newRoutesCommand(kube), newExplainCommand(kube), newPoolsCommand(kube), newConvertCommand())
	return root
}
