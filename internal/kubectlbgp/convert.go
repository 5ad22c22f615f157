package kubectlbgp

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"kbgp.io/kbgp/internal/convert"
)

// maxConvertInput bounds what convert reads: BGP configurations are kilobytes, and a
// mistaken -f (a log, a device) must not fill the memory.
const maxConvertInput = 64 << 20

// newConvertCommand is `kubectl bgp convert`: it turns the BGP objects of Cilium and
// MetalLB into kbgp objects, offline. It needs no cluster: users convert what `kubectl
// get -o yaml` printed or what they keep in git, read the output and the warnings, and
// apply when they are ready (docs/migration.md).
func newConvertCommand() *cobra.Command {
	var file string
	cmd := &cobra.Command{
		Use:   "convert -f FILE",
		Short: "Convert Cilium and MetalLB BGP objects into kbgp objects (reads a file, not the cluster)",
		Long: `convert reads Cilium BGP objects (CiliumBGPPeeringPolicy, CiliumBGPClusterConfig,
CiliumBGPPeerConfig, CiliumBGPAdvertisement, CiliumBGPNodeConfigOverride,
CiliumLoadBalancerIPPool) and MetalLB
objects (BGPPeer, BGPAdvertisement, IPAddressPool, Community, BFDProfile) from FILE, or
standard input with -f -, and writes the equivalent kbgp objects as YAML on standard
output. Every input field without an exact kbgp equivalent is named in a warning on
standard error; nothing is dropped without one. It does not contact the cluster.`,
		Example: `  kubectl bgp convert -f cilium-bgp.yaml > kbgp.yaml
  kubectl get ciliumbgppeeringpolicies,ciliumloadbalancerippools -o yaml | kubectl bgp convert -f -
  kubectl get -n metallb-system bgppeers,bgpadvertisements,ipaddresspools -o yaml | kubectl bgp convert -f -`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			input, err := readConvertInput(cmd.InOrStdin(), file)
			if err != nil {
				return err
			}
			objs, warnings, err := convert.Convert(input)
			if err != nil {
				return err
			}
			for _, w := range warnings {
				fmt.Fprintln(cmd.ErrOrStderr(), "warning: "+clean(w.String()))
			}
			if len(objs) == 0 {
				fmt.Fprintln(cmd.ErrOrStderr(), "No kbgp objects were generated.")
				return nil
			}
			return convert.Write(cmd.OutOrStdout(), objs)
		},
	}
	cmd.Flags().StringVarP(&file, "filename", "f", "", "the file to convert; - reads standard input")
	_ = cmd.MarkFlagRequired("filename")
	return cmd
}

// readConvertInput reads FILE, or stdin for "-".
func readConvertInput(stdin io.Reader, file string) ([]byte, error) {
	r := stdin
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, maxConvertInput+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	if len(data) > maxConvertInput {
		return nil, fmt.Errorf("%s is larger than %d MiB", file, maxConvertInput>>20)
	}
	return data, nil
}
