package main

import (
	"errors"
	"log/slog"
	"net"
	"os"

	"github.com/spf13/cobra"
	ctrl "sigs.k8s.io/controller-runtime"

	"kbgp.io/kbgp/internal/agent"
	"kbgp.io/kbgp/internal/bgp/gobgp"
)

// Environment variables the agent reads, set by the DaemonSet from the downward API.
const (
	envNodeName     = "NODE_NAME"
	envPodNamespace = "POD_NAMESPACE"
)

// defaultNamespace is kbgp's namespace when POD_NAMESPACE is unset: where the agent
// looks for Secrets and the operator keeps its leader-election Lease.
const defaultNamespace = "kbgp-system"

// errNodeNameUnset is the fail-fast message of docs/design/README.md ("Router ID").
var errNodeNameUnset = errors.New("NODE_NAME environment variable not set - required for dynamic router ID resolution")

// agentOptions are the flags of `kbgp agent`.
type agentOptions struct {
	client             clientOptions
	nodeName           string
	namespace          string
	metricsAddress     string
	healthProbeAddress string
	pprofAddress       string
	metricsSecure      bool
	stateDir           string
	podNetwork         podNetworkOptions
	kernelRoutes       bool
}

// validate applies the environment defaults and fails fast on what the agent cannot
// run without.
func (o *agentOptions) validate() error {
	if o.nodeName == "" {
		o.nodeName = os.Getenv(envNodeName)
	}
	if o.nodeName == "" {
		return errNodeNameUnset
	}
	if o.namespace == "" {
		o.namespace = namespaceFromEnv()
	}
	return nil
}

func newAgentCommand() *cobra.Command {
	var o agentOptions
	cmd := &cobra.Command{
		Use:   "agent",
		Short: "Run this node's BGP speaker from its BGPNodeConfig and report its status",
		Long: `The agent runs on every node (DaemonSet, host network). It watches only its own
BGPNodeConfig, the BGPPeerConfigs and BGPAdvertisements it references, Secrets in
its namespace and its own Node, runs an embedded GoBGP speaker per BGP instance and
writes peer state, routes and router IDs to the BGPNodeConfig's status.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return runAgent(o)
		},
	}
	f := cmd.Flags()
	o.client.addFlags(f)
	f.StringVar(&o.nodeName, "node-name", "", "name of the Node this agent runs on (default $"+envNodeName+", required)")
	f.StringVar(&o.namespace, "namespace", "", "namespace of the agent's Secrets (default $"+envPodNamespace+", else "+defaultNamespace+")")
	f.StringVar(&o.metricsAddress, "metrics-bind-address", hostBind("9080"), "address of the Prometheus /metrics endpoint and of /bgp/routes, the routes each peer is sent and sent it (default $"+envHostIP+":9080, else :9080); 0 disables both")
	f.StringVar(&o.healthProbeAddress, "health-probe-bind-address", hostBind("9081"), "address of the /healthz and /readyz endpoints (default $"+envHostIP+":9081, else :9081)")
	f.StringVar(&o.stateDir, "state-dir", "", "node-local directory kept across agent restarts (the DaemonSet mounts /var/lib/kbgp): a graceful stop leaves a marker there so the next start restarts as a graceful-restart speaker, and each apply a checkpoint of the applied state (no secret) the next start restores while the API server is unreachable (only on the same node and boot); created (0700) when missing, and the agent does not start when it cannot write there; empty: every start is a fresh one")
	o.podNetwork.addFlags(f)
	f.BoolVar(&o.kernelRoutes, "kernel-routes", true, "install the routes peers send that a peer config family's import policy accepts into the node's main routing table (protocol 210); false: import policies install nothing (pod routes still, with --pod-network)")
	f.StringVar(&o.pprofAddress, "pprof-bind-address", "", "address of Go's /debug/pprof endpoints, for profiling the agent (heap, CPU); empty: off. Bind it to localhost: it is not authenticated")
	f.BoolVar(&o.metricsSecure, "metrics-secure", false, "serve /metrics and /bgp/routes over HTTPS to callers the API server authenticates and authorises (get on the non-resource URL /metrics, or /bgp/routes)")
	return cmd
}

// runAgent runs until SIGTERM or SIGINT, then stops the speakers (with graceful restart
// where negotiated) and exits 0.
func runAgent(o agentOptions) error {
	setupLogging()
	cfg, err := o.client.restConfig()
	if err != nil {
		return err
	}
	logger := slog.Default().With("node", o.nodeName)
	podNetwork, err := o.podNetwork.agentOptions()
	if err != nil {
		return err
	}
	return agent.Run(ctrl.SetupSignalHandler(), cfg, agent.Options{
		NodeName:           o.nodeName,
		Namespace:          o.namespace,
		MetricsAddress:     o.metricsAddress,
		HealthProbeAddress: o.healthProbeAddress,
		PprofAddress:       o.pprofAddress,
		MetricsSecure:      o.metricsSecure,
		StateDir:           o.stateDir,
		PodNetwork:         podNetwork,
		KernelRoutes:       o.kernelRoutes,
		Routers:            gobgp.Factory{Logger: logger},
		Logger:             logger,
	})
}

// envHostIP is the node's address the DaemonSet passes from the downward API
// (status.hostIP): on the host network, an endpoint bound to ":port" would listen on
// every address of the node, public ones included.
const envHostIP = "HOST_IP"

// hostBind is the default bind address of an agent endpoint: the host IP when the
// environment gives one, else every address.
func hostBind(port string) string {
	return net.JoinHostPort(os.Getenv(envHostIP), port)
}
