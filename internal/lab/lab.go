// Package lab is `kbgp-lab`, the embedded default: the whole system on one machine with
// nothing but Go installed. It starts a real kube-apiserver and etcd, installs the CRDs,
// creates three Nodes, sample configs and LoadBalancer Services, runs the operator and
// one agent per node in this process, and an upstream GoBGP router on loopback that the
// agents peer with, then prints what every node reports and what the router received.
package lab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/agent"
	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/bgp/gobgp"
	"kbgp.io/kbgp/internal/contract"
	"kbgp.io/kbgp/internal/controlplane"
	"kbgp.io/kbgp/internal/operator"
	"kbgp.io/kbgp/internal/testing/gobgptest"
)

// Options configure a lab run.
type Options struct {
	// Once prints the report and returns instead of running until ctx ends; the
	// error is nil only if every session is Established and every expected route
	// arrived.
	Once bool
	// Timeout bounds the wait for the lab to come up.
	Timeout time.Duration
	// Dir holds the kubeconfig and the components' log; "" makes a temporary one.
	Dir string
	// Router is the upstream router: "gobgp" (embedded, the default) or "frr" (FRR's
	// bgpd, when installed; needs root).
	Router string
	// Out receives the report.
	Out io.Writer
}

// upstreamRouter is the router the lab's agents peer with.
type upstreamRouter interface {
	Sessions(ctx context.Context) (map[netip.Addr]bgp.SessionState, error)
	Received(ctx context.Context) ([]bgp.ReceivedRoute, error)
	Stop()
}

// statusInterval lets the lab's agents report within a second, so the table is
// current when printed; production agents write at most every 5 s.
const statusInterval = time.Second

// Run runs the lab until ctx ends (or once, with Options.Once).
func Run(ctx context.Context, o Options) error {
	dir, cleanup, err := workDir(o.Dir)
	if err != nil {
		return err
	}
	defer cleanup()
	logFile, err := os.Create(filepath.Join(dir, "lab.log"))
	if err != nil {
		return err
	}
	defer logFile.Close()
	// The components' logs would bury the report: they go to a file, controller-
	// runtime's included (the lab owns the process).
	handler := slog.NewJSONHandler(logFile, &slog.HandlerOptions{Level: slog.LevelInfo})
	logger := slog.New(handler)
	slog.SetDefault(logger)
	ctrl.SetLogger(logr.FromSlogHandler(handler))
	fmt.Fprintf(o.Out, "kbgp-lab: starting kube-apiserver and etcd (components log to %s)\n", logFile.Name())

	cp, err := controlplane.Start()
	if err != nil {
		return err
	}
	defer stopControlPlane(cp, o.Out)
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := cp.WriteKubeconfig(kubeconfig, "lab-admin"); err != nil {
		return err
	}

	port, err := freePort(upstreamAddr)
	if err != nil {
		return err
	}
	upstream, err := startUpstream(ctx, o.Router, port, logger)
	if err != nil {
		return err
	}
	defer upstream.Stop()

	scheme, err := contract.NewScheme()
	if err != nil {
		return err
	}
	c, err := client.New(cp.Config, client.Options{Scheme: scheme})
	if err != nil {
		return err
	}
	if err := createAll(ctx, c, objects(port)); err != nil {
		return err
	}

	runCtx, stop := context.WithCancel(ctx)
	components, err := startComponents(runCtx, cp.Config, logger)
	if err != nil {
		stop()
		return err
	}
	defer func() {
		fmt.Fprintln(o.Out, "kbgp-lab: stopping agents, operator, router and API server")
		stop()
		components.Wait()
	}()

	upstreamName := fmt.Sprintf("%s, AS%d at %s", o.Router, upstreamASN, netip.AddrPortFrom(upstreamAddr, port))
	fmt.Fprintf(o.Out, "kbgp-lab: %d nodes, operator, agents and an upstream router (%s) running; waiting for sessions and routes\n",
		len(nodes), upstreamName)
	r, err := waitReady(ctx, c, upstream, o.Timeout)
	if err != nil {
		return err
	}
	r.kubeconfig, r.upstream = kubeconfig, upstreamName
	fmt.Fprintln(o.Out)
	r.write(o.Out)
	if o.Once {
		if len(r.problems) > 0 {
			return fmt.Errorf("lab not as expected after %s: %d problems", o.Timeout, len(r.problems))
		}
		return nil
	}
	fmt.Fprintln(o.Out, "\nkbgp-lab: running; press Ctrl-C to stop.")
	<-ctx.Done()
	return nil
}

// workDir returns dir, or a new temporary directory removed by cleanup.
func workDir(dir string) (string, func(), error) {
	if dir != "" {
		return dir, func() {}, os.MkdirAll(dir, 0o700)
	}
	tmp, err := os.MkdirTemp("", "kbgp-lab-")
	if err != nil {
		return "", nil, err
	}
	return tmp, func() { _ = os.RemoveAll(tmp) }, nil
}

func stopControlPlane(cp *controlplane.ControlPlane, out io.Writer) {
	if err := cp.Stop(); err != nil {
		fmt.Fprintf(out, "kbgp-lab: stop API server: %v\n", err)
	}
}

// freePort asks the kernel for a free TCP port on addr.
func freePort(addr netip.Addr) (uint16, error) {
	l, err := net.Listen("tcp", netip.AddrPortFrom(addr, 0).String())
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return uint16(l.Addr().(*net.TCPAddr).Port), nil
}

// startUpstream starts the router the agents peer with and lets every node in.
func startUpstream(ctx context.Context, kind string, port uint16, logger *slog.Logger) (upstreamRouter, error) {
	switch kind {
	case "gobgp":
	case "frr":
		return startFRR(port)
	default:
		return nil, fmt.Errorf("unknown --router %q: gobgp or frr", kind)
	}
	u, err := gobgptest.StartUpstream(ctx, gobgptest.UpstreamConfig{
		ASN: upstreamASN, RouterID: upstreamRouterID, Address: upstreamAddr, Port: port, Logger: logger.With("component", "upstream"),
	})
	if err != nil {
		return nil, err
	}
	for _, n := range nodes {
		if err := u.AddNeighbor(ctx, n.source, clusterASN); err != nil {
			u.Stop()
			return nil, err
		}
	}
	return u, nil
}

// createAll creates the lab's objects, then writes the status a cluster's controllers
// outside kbgp would have written (Node addresses, the other class's load-balancer IP):
// Create ignores status.
func createAll(ctx context.Context, c client.Client, objs []client.Object) error {
	for _, obj := range objs {
		status := obj.DeepCopyObject().(client.Object)
		if err := c.Create(ctx, obj); err != nil {
			return fmt.Errorf("create %T %s: %w", obj, obj.GetName(), err)
		}
		if !hasStatus(status) {
			continue
		}
		status.SetResourceVersion(obj.GetResourceVersion())
		if err := c.Status().Update(ctx, status); err != nil {
			return fmt.Errorf("status of %T %s: %w", obj, obj.GetName(), err)
		}
	}
	return nil
}

// startComponents runs the operator and one agent per node until ctx ends; Wait
// returns when all have stopped (agents stop their speakers first).
func startComponents(ctx context.Context, cfg *rest.Config, logger *slog.Logger) (*sync.WaitGroup, error) {
	op, err := operator.NewManager(cfg, operator.Options{MetricsAddress: "0", HealthProbeAddress: "0", InProcessReplica: true, AgentNamespace: namespace})
	if err != nil {
		return nil, err
	}
	var wg sync.WaitGroup
	run := func(name string, f func() error) {
		wg.Go(func() {
			if err := f(); err != nil && !errors.Is(err, context.Canceled) {
				logger.Error("component stopped", "component", name, "error", err)
			}
		})
	}
	run("operator", func() error { return op.Start(ctx) })
	for _, n := range nodes {
		agentLogger := logger.With("component", "agent", "node", n.name)
		run("agent "+n.name, func() error {
			return agent.Run(ctx, cfg, agent.Options{
				NodeName: n.name, Namespace: namespace, MetricsAddress: "0", HealthProbeAddress: "0",
				Routers: gobgp.Factory{Logger: agentLogger}, Logger: agentLogger, StatusInterval: statusInterval,
			})
		})
	}
	return &wg, nil
}

// waitReady polls until the lab is as expected or timeout passes, and returns the
// report of the last poll either way.
func waitReady(ctx context.Context, c client.Client, upstream upstreamRouter, timeout time.Duration) (report, error) {
	deadline := time.Now().Add(timeout)
	for {
		r, err := observe(ctx, c, upstream)
		if err != nil {
			return report{}, err
		}
		if len(r.problems) == 0 || time.Now().After(deadline) {
			return r, nil
		}
		select {
		case <-ctx.Done():
			return r, nil
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// observe reads the agents' status and the upstream router and compares both with the
// lab's expectations.
func observe(ctx context.Context, c client.Client, upstream upstreamRouter) (report, error) {
	var ncs kbgpv1.BGPNodeConfigList
	if err := c.List(ctx, &ncs); err != nil {
		return report{}, fmt.Errorf("list node configs: %w", err)
	}
	sessions, err := upstream.Sessions(ctx)
	if err != nil {
		return report{}, err
	}
	routes, err := upstream.Received(ctx)
	if err != nil {
		return report{}, err
	}
	problems := append(checkSessions(sessions), checkNodeConfigs(ncs.Items)...)
	problems = append(problems, compareRoutes(expectedRoutes(), routes)...)
	return report{nodeConfigs: ncs.Items, routes: routes, problems: problems}, nil
}

// hasStatus says whether the lab sets status on obj: Nodes, and Services of another
// load-balancer class, whose status a real cluster's controllers outside kbgp write.
func hasStatus(obj client.Object) bool {
	switch o := obj.(type) {
	case *corev1.Node:
		return true
	case *corev1.Service:
		return o.Spec.LoadBalancerClass != nil
	}
	return false
}
