package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/test/e2e/netlab"
)

// agentNamespace is where the agents look for Secrets.
const agentNamespace = "kbgp-system"

// agentProcess is `kbgp agent` running inside a node namespace, reaching the API
// server through a Unix-socket relay.
type agentProcess struct {
	proc  *netlab.Process
	relay *netlab.Relay
	ns    *netlab.Namespace
	// stateDir is the agent's --state-dir, kept across restart.
	stateDir string
}

// startAgent starts `kbgp agent` for node inside ns. Its API server address is the
// relay's end inside the namespace; the TLS certificate of the test API server is
// valid for 127.0.0.1, which is also where the relay listens.
func startAgent(t *testing.T, lab *netlab.Lab, ns *netlab.Namespace, node string) *agentProcess {
	t.Helper()
	a := startAgentWithState(t, lab, ns, node, t.TempDir())
	// The state directory is removed when the test ends, before the lab's own cleanup
	// (registered earlier) stops the agent: stop it first, or it may still be writing
	// its checkpoint there and the removal fails ("directory not empty").
	t.Cleanup(func() { _ = a.proc.Stop() })
	return a
}

// startAgentWithState starts the agent with stateDir as its --state-dir: an agent
// restarted with the same directory finds what its predecessor left there.
func startAgentWithState(t *testing.T, lab *netlab.Lab, ns *netlab.Namespace, node, stateDir string) *agentProcess {
	t.Helper()
	return startAgentProcess(t, lab, ns, node, stateDir, true)
}

// startAgentProcess starts the agent; without apiReachable its relay to the API server
// is paused before the agent starts, so it starts as on a node cut off from the API
// server (relay.Resume brings the API server back).
func startAgentProcess(t *testing.T, lab *netlab.Lab, ns *netlab.Namespace, node, stateDir string, apiReachable bool, extraArgs ...string) *agentProcess {
	t.Helper()
	kubeconfig, relay := lab.RelayedKubeconfig(ns, server.Config.Host, node, func(path string) error {
		return server.WriteKubeconfig(path, "agent-"+node)
	})
	if !apiReachable {
		relay.Pause()
	}
	args := append([]string{"agent", "--kubeconfig", kubeconfig, "--node-name", node,
		"--namespace", agentNamespace, "--metrics-bind-address", "127.0.0.1:9080", "--health-probe-bind-address", "127.0.0.1:9081",
		"--state-dir", stateDir}, extraArgs...)
	proc := ns.Start("kbgp-agent", append([]string{kbgpBinary}, args...)...)
	// Stopped before the test's temporary directories go (cleanups run last first):
	// the lab stops its processes only after them, and an agent still writing its
	// checkpoint into a directory being removed fails the removal. An agent started
	// in a subtest (a restart) outlives it, for the next subtests: the lab stops it.
	if !strings.Contains(t.Name(), "/") {
		t.Cleanup(func() { _ = proc.Stop() })
	}
	return &agentProcess{proc: proc, relay: relay, ns: ns, stateDir: stateDir}
}

// healthy asks the agent's liveness endpoint from inside its namespace.
func (a *agentProcess) healthy() (bool, string) {
	out, err := a.ns.ExecTimeout(5*time.Second, "bash", "-c",
		`exec 3<>/dev/tcp/127.0.0.1/9081 && printf 'GET /healthz HTTP/1.0\r\n\r\n' >&3 && cat <&3`)
	return err == nil && strings.Contains(out, "200 OK"), out
}

// ensureNamespace creates the agents' namespace once.
func ensureNamespace(t *testing.T) {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: agentNamespace}}
	if err := server.Client.Create(context.Background(), ns); err != nil && !strings.Contains(err.Error(), "already exists") {
		t.Fatal(err)
	}
}

// create creates objects and deletes them when the test ends.
func create(t *testing.T, objs ...client.Object) {
	t.Helper()
	for _, o := range objs {
		if err := server.Client.Create(context.Background(), o); err != nil {
			t.Fatalf("create %T %s: %v", o, o.GetName(), err)
		}
		t.Cleanup(func() { _ = server.Client.Delete(context.Background(), o) })
	}
}

// update reads obj by name, applies mutate and writes it back, retrying conflicts.
func update[T client.Object](t *testing.T, obj T, mutate func(T)) {
	t.Helper()
	ctx := context.Background()
	for range 10 {
		if err := server.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
			t.Fatal(err)
		}
		mutate(obj)
		err := server.Client.Update(ctx, obj)
		if err == nil {
			return
		}
		if !strings.Contains(err.Error(), "the object has been modified") {
			t.Fatalf("update %s: %v", obj.GetName(), err)
		}
	}
	t.Fatalf("update %s: conflicts", obj.GetName())
}

// peerStates reads the peeringState of every peer in the node config's status.
func peerStates(t *testing.T, node string) map[string]kbgpv1.PeeringState {
	t.Helper()
	nc := &kbgpv1.BGPNodeConfig{}
	if err := server.Client.Get(context.Background(), types.NamespacedName{Name: node}, nc); err != nil {
		t.Fatal(err)
	}
	out := map[string]kbgpv1.PeeringState{}
	for _, inst := range nc.Status.BGPInstances {
		for _, p := range inst.Peers {
			out[p.Name] = p.PeeringState
		}
	}
	return out
}

func nodeStatus(t *testing.T, node string) kbgpv1.BGPNodeConfigStatus {
	t.Helper()
	nc := &kbgpv1.BGPNodeConfig{}
	if err := server.Client.Get(context.Background(), types.NamespacedName{Name: node}, nc); err != nil {
		t.Fatal(err)
	}
	return nc.Status
}
