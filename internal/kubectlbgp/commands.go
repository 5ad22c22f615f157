package kubectlbgp

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kbgp.io/kbgp/internal/adjribapi"
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
	cmd.Flags().StringVarP(&output, "output", "o", "", "output format: wide adds the peer ASN, the negotiated timers, BFD, the routes installed/rejected in the kernel and ADD-PATH")
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
	var agentNamespace, agentURL string
	var computed bool
	cmd := &cobra.Command{
		Use:   "explain NODE | explain service NAMESPACE/NAME",
		Short: "Explain why a node runs its BGP configuration, or which nodes announce a Service to which peers and why not the others",
		Long: `explain NODE: cluster config, override, peer configs, advertisements, status.
explain service NAMESPACE/NAME: for every node with a BGPNodeConfig, first from the
node's agent (through the API server's pod proxy, like kubectl bgp routes): per peer,
whether each of the Service's addresses is in the peer's Adj-RIB-Out now, and when it
is not, why as far as the node's status tells (refused, held down, session down) or
the recomputation infers (not selected, no local endpoint). Then the computed answer:
the host routes each peer must be sent, or why the node sends none (refused
addresses, a Local traffic policy without a ready endpoint there, another
load-balancer class, no address, no selecting advertisement). --computed skips the
agents.`,
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
				var ask func(string) (agentGet, error)
				if !computed {
					ask = func(node string) (agentGet, error) { return k.agent(cmd.Context(), r, node, agentNamespace, agentURL) }
				}
				lines, err := runExplainService(cmd.Context(), r, args[1], agentNamespace, ask)
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
	cmd.Flags().StringVar(&agentNamespace, "agent-namespace", "kbgp-system", "namespace of the agents' pods and Secrets (MD5 passwords), for explain service")
	cmd.Flags().BoolVar(&computed, "computed", false, "explain service: only the computed answer, without asking the agents")
	cmd.Flags().StringVar(&agentURL, "agent-url", "", "explain service: ask the agent at this URL directly instead of through the API server's pod proxy (one node's agent: every node is asked there)")
	return cmd
}

func newRoutesCommand(k *kubeOptions) *cobra.Command {
	var output, agentNamespace, agentURL, peer, prefix string
	var advertised, received, computed bool
	cmd := &cobra.Command{
		Use:   "routes NODE [--advertised | --received | --computed]",
		Short: "List the routes each peer of a node is sent (--advertised, the default) or sent it (--received), as the node's agent holds them",
		Long: `--advertised and --received ask the node's agent, through the API server's pod proxy,
for each peer's Adj-RIB-Out (the routes it is sent, with the attributes as sent) or
Adj-RIB-In (what it sent, before import policy; KERNEL says whether each route is in
the node's kernel, and if not why). The caller needs list on pods and
get on pods/proxy in the agents' namespace (docs/kubectl-bgp.md).

--computed does not ask the agent: it recomputes what each peer must be sent from the
objects the agent reads, with the agent's own code, and compares each peer's count
with the routesAdvertised the agent reports. What the plugin cannot see (router IDs
not reported yet, Secrets it cannot read, the node's VRF devices, the last good
configuration the agent keeps) makes it differ; its caveats are printed. Without
NODE: every node with a BGPNodeConfig.`,
		Example: `  kubectl bgp routes worker-1
  kubectl bgp routes worker-1 --received --peer tor-a
  kubectl bgp routes worker-1 --prefix 198.51.100.10 -o wide
  kubectl bgp routes --computed`,
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
			if computed {
				return runComputedRoutes(cmd, r, node, agentNamespace, wide)
			}
			if node == "" {
				return fmt.Errorf("name the NODE whose agent to ask (or use --computed for every node)")
			}
			side := adjribapi.Advertised
			if received {
				side = adjribapi.Received
			}
			get, err := k.agent(cmd.Context(), r, node, agentNamespace, agentURL)
			if err != nil {
				return err
			}
			answer, err := agentRoutes(cmd.Context(), get, side, peer, prefix)
			if err != nil {
				return err
			}
			rows, counts := agentRouteRows(answer, wide)
			lines := []string{}
			if len(rows) > 0 {
				lines = formatTable(agentRoutesHeader(answer.Side, wide), rows)
			} else {
				lines = append(lines, fmt.Sprintf("No routes %s.", side))
			}
			return writeLines(cmd.OutOrStdout(), append(append(lines, ""), counts...))
		},
	}
	f := cmd.Flags()
	f.BoolVar(&advertised, "advertised", false, "the routes each peer is sent (Adj-RIB-Out), from the agent (the default)")
	f.BoolVar(&received, "received", false, "the routes each peer sent (Adj-RIB-In, before import policy), from the agent")
	f.BoolVar(&computed, "computed", false, "recompute what each peer must be sent instead of asking the agent (caveats printed)")
	cmd.MarkFlagsMutuallyExclusive("advertised", "received", "computed")
	f.StringVar(&peer, "peer", "", "only this peer (by name)")
	f.StringVar(&prefix, "prefix", "", "only routes equal to or inside this prefix (an address: its host route)")
	f.StringVarP(&output, "output", "o", "", "output format: wide adds large communities, local preference, AS path, origin, MED and link bandwidth")
	f.StringVar(&agentNamespace, "agent-namespace", "kbgp-system", "namespace of the agents' pods (and of their Secrets, for --computed)")
	f.StringVar(&agentURL, "agent-url", "", "ask the agent at this URL (http://HOST:PORT of its metrics listener) directly, not through the API server's pod proxy; no credentials are sent")
	return cmd
}

// runComputedRoutes is --computed: the routes recomputed with intent.Build, printed
// under its caveats.
func runComputedRoutes(cmd *cobra.Command, r client.Reader, node, agentNamespace string, wide bool) error {
	ncs, err := nodeConfigs(cmd.Context(), r, node)
	if err != nil {
		return err
	}
	cluster, notes, err := readCluster(cmd.Context(), r)
	if err != nil {
		return err
	}
	owners := newServiceOwners(cluster.Services)
	var rows [][]string
	var counts []string
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
	lines := slices.Clone(computedCaveats)
	if len(rows) > 0 {
		lines = append(lines, formatTable(routesHeader(wide), rows)...)
	} else {
		lines = append(lines, "No routes: no peer of these nodes selects anything.")
	}
	lines = append(append(lines, ""), counts...)
	for _, n := range notes {
		lines = append(lines, "note: "+cell(n))
	}
	return writeLines(cmd.OutOrStdout(), lines)
}

// computedCaveats head the computed view: it is not what the nodes send.
var computedCaveats = []string{
	"Computed by the plugin, not read from the agents: a node sends something else when its VRF device is missing,",
	"when it keeps a last good configuration, or when it refused an address; ask the agent with --advertised.",
	"",
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
