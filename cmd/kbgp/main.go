// Command kbgp is kbgp's binary: the operator, the per-node agent, the CNI plugin
// installer, the lab and the version, as subcommands. It links no test tooling
// (hack/importcheck): `kbgp lab` runs the separate cmd/kbgp-lab binary, so no envtest,
// whose package init writes a cache directory that a read-only root filesystem refuses,
// reaches the image. The CNI plugin the runtime executes for every pod is
// cmd/kbgp-cni, a binary of its own beside this one in the image.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

func main() {
	if err := newRootCommand().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "kbgp:", err)
		os.Exit(1)
	}
}

func newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "kbgp",
		Short: "Kubernetes-native BGP control plane",
		Long: `kbgp announces pod CIDRs and Service addresses to the routers around a
bare-metal cluster. The operator renders one BGPNodeConfig per node from the
cluster-wide configuration; the agent on each node runs an embedded GoBGP speaker
for it and reports what it is doing in that object's status.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.CompletionOptions.DisableDefaultCmd = true
	root.AddCommand(newOperatorCommand(), newAgentCommand(), newInstallCNICommand(), newLabCommand(), newVersionCommand())
	return root
}
