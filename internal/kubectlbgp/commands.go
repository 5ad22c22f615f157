package kubectlbgp

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"kbgp.io/kbgp/internal/intent"
)

func newPeersCommand(k *kubeOptions) *cobra.Command {
	var node, output string
	cmd := &cobra.Command{
		Use:   "peers",
		Short: "List the BGP sessions of every node, as the agents report them",
		Example: `  kubectl bgp peers
  kubectl bgp peers --node worker-1 -o wide`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			wide, err := isWide(output)
			if err != nil {
				return err
			}
			r, err := k.reader()
			if err != nil {
				return err
			}
			ncs, err := nodeConfigs(cmd.Context(), r, node)
			if err != nil {
				return err
			}
			rows := peerRows(ncs, time.Now(), wide)
			if len(rows) == 0 {
				fmt.Fprintln(cmd.ErrOrStderr(), "No BGP sessions reported.")
				return nil
			}
			return writeLines(cmd.OutOrStdout(), formatTable(peersHeader(wide), rows))
		},
	}
	cmd.Flags().StringVar(&node, "node", "", "show only the sessions of this node")
	cmd.Flags().StringVarP(&output, "output", "o", "", "output format: wide adds the peer ASN and the negotiated timers")
	return cmd
}

func newStatusCommand(k *kubeOptions) *cobra.Command {
	var node, agentNamespace string
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Summarise every node: router IDs, Ready, Degraded, sessions up and failed resources",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := k.reader()
			if err != nil {
				return err
			}
			ncs, err := nodeConfigs(cmd.Context(), r, node)
			if err != nil {
				return err
			}
			if len(ncs) == 0 {
				fmt.Fprintln(cmd.ErrOrStderr(), "No BGPNodeConfigs found.")
				return nil
			}
			seen, err := agentLeases(cmd.Context(), r, agentNamespace)
			if err != nil {
				return err
			}
			return writeLines(cmd.OutOrStdout(), statusLines(ncs, seen, time.Now()))
		},
	}
	cmd.Flags().StringVar(&node, "node", "", "show only this node")
	cmd.Flags().StringVar(&agentNamespace, "agent-namespace", "kbgp-system", "namespace of the agents' liveness Leases")
	return cmd
}

func newExplainCommand(k *kubeOptions) *cobra.Command {
	var agentNamespace string
	cmd := &cobra.Command{
		Use:   "explain NODE | explain service NAMESPACE/NAME",
		Short: "Explain why a node runs its BGP configuration, or which nodes announce a Service to which peers and why not the others",
		Long: `explain NODE: cluster config, override, peer configs, advertisements, status.
explain service NAMESPACE/NAME: for every node with a BGPNodeConfig, the Service's host
routes each peer is sent, with their attributes, or why the node sends none (refused
addresses, a Local traffic policy without a ready endpoint there, another load-balancer
class, no address, no selecting advertisement) — computed like kubectl bgp routes.`,
		Example: `  kubectl bgp explain worker-1
  kubectl bgp explain service shop/web`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := k.reader()
			if err != nil {
				return err
			}
			if len(args) == 2 {
				if args[0] != "service" {
					return fmt.Errorf("explain takes a NODE, or service NAMESPACE/NAME")
				}
				lines, err := runExplainService(cmd.Context(), r, args[1], agentNamespace)
				if err != nil {
					return err
				}
				return writeLines(cmd.OutOrStdout(), lines)
			}
			in, err := fetchExplainInput(cmd.Context(), r, args[0])
			if err != nil {
				return err
			}
			return writeLines(cmd.OutOrStdout(), explain(in))
		},
	}
	cmd.Flags().StringVar(&agentNamespace, "agent-namespace", "kbgp-system", "namespace of the agents' Secrets (MD5 passwords), for explain service")
	return cmd
}

func newRoutesCommand(k *kubeOptions) *cobra.Command {
	var output, agentNamespace string
	cmd := &cobra.Command{
		Use:   "routes [NODE]",
		Short: "List the prefixes each peer of a node must be sent, with their attributes, computed as the agent computes them",
		Long: `Routes are not stored in the API; this computes them from the same objects and with the
same code as the agent (intent.Build), then compares each peer's count with the
routesAdvertised the agent reports. Without NODE: every node with a BGPNodeConfig.`,
		Example: `  kubectl bgp routes worker-1
  kubectl bgp routes -o wide`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			wide, err := isWide(output)
			if err != nil {
				return err
			}
			r, err := k.reader()
			if err != nil {
				return err
			}
			node := ""
			if len(args) == 1 {
				node = args[0]
			}
			ncs, err := nodeConfigs(cmd.Context(), r, node)
			if err != nil {
				return err
			}
			cluster, err := readCluster(cmd.Context(), r)
			if err != nil {
				return err
			}
			owners := newServiceOwners(cluster.Services)
			var rows [][]string
			var counts, notes []string
			for i := range ncs {
				in, n, err := nodeRoutesInput(cmd.Context(), r, &ncs[i], cluster, agentNamespace)
				if err != nil {
					return err
				}
				res := intent.Build(in)
				rows = append(rows, routeRows(ncs[i].Name, res.Desired, owners, wide)...)
				counts = append(counts, countLines(&ncs[i], res.Desired)...)
				notes = append(notes, n...)
			}
			lines := []string{}
			if len(rows) > 0 {
				lines = formatTable(routesHeader(wide), rows)
			} else {
				lines = append(lines, "No routes: no peer of these nodes selects anything.")
			}
			lines = append(append(lines, ""), counts...)
			for _, n := range notes {
				lines = append(lines, "note: "+cell(n))
			}
			return writeLines(cmd.OutOrStdout(), lines)
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "output format: wide adds large communities and local preference")
	cmd.Flags().StringVar(&agentNamespace, "agent-namespace", "kbgp-system", "namespace of the agents' Secrets (MD5 passwords)")
	return cmd
}

// isWide validates -o: only the default table and wide exist.
func isWide(output string) (bool, error) {
	switch output {
	case "":
		return false, nil
	case "wide":
		return true, nil
	}
	return false, fmt.Errorf("unknown output format %q: use -o wide or nothing", output)
}

func writeLines(w io.Writer, lines []string) error {
	_, err := io.WriteString(w, strings.Join(lines, "\n")+"\n")
	return err
}
