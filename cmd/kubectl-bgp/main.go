// Command kubectl-bgp is the kubectl plugin of kbgp (`kubectl bgp ...`); its logic is
// in internal/kubectlbgp.
package main

import (
	"fmt"
	"os"

	"kbgp.io/kbgp/internal/kubectlbgp"
)

func main() {
	if err := kubectlbgp.NewRootCommand().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "kubectl-bgp:", err)
		os.Exit(1)
	}
}
