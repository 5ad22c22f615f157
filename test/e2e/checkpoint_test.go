package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"kbgp.io/kbgp/test/e2e/netlab"
)

// checkpointRoutes is how many routes the agent sends FRR in the checkpoint test: a
// flush is all-or-nothing, so a few thousand show it as well as more would.
const checkpointRoutes = 2000

// checkpointRestartTime is the graceful-restart time of the checkpoint test (s): short,
// so the negative control sees FRR flush the routes soon.
const checkpointRestartTime = 20

// TestAgentRestoresFromCheckpointWithoutAPIServer: the agent is SIGKILLed and started
// again while its API server is unreachable (its relay paused: the shared API server
// serves the other tests). It runs its speaker from the checkpoint, so FRR's table never
// shrinks; a Service created meanwhile reaches FRR once the API server is back. The
// negative control, the same restart without the checkpoint, shows FRR flushing every
// route when its restart timer ends.
func TestAgentRestoresFromCheckpointWithoutAPIServer(t *testing.T) {
	lab := netlab.New(t)
	gr := grTopology(t, lab, "e2e-ckpt-", checkpointRoutes, checkpointRestartTime)
	nodeName, tables := gr.nodeName, gr.tables()
	agent := startAgent(t, lab, gr.node, nodeName)
	waitReceived(t, checkpointRoutes, tables...)

	t.Run("SIGKILL, API server away: sessions come back from the checkpoint, no route lost", func(t *testing.T) {
		agent = killAndStartOffline(t, lab, agent, nodeName, "198.18.7.208/32", false)
		for table, least := range sampleUntilSettled(t, checkpointRoutes, tables...) {
			if least < checkpointRoutes {
				t.Errorf("%s's table fell to %d of %d routes", table, least, checkpointRoutes)
			}
		}
		if agent.proc.Exited() {
			t.Fatalf("the agent exited without its API server:\n%s", agent.proc.Log())
		}
		createGRService(t, nodeName, nodeName+"-meanwhile", "198.19.255.1")
		time.Sleep(2 * time.Second)
		for _, table := range tables {
			if got, _, _ := table.received(); got != checkpointRoutes {
				t.Fatalf("%s holds %d routes while the API server is away, want %d", table, got, checkpointRoutes)
			}
		}
		agent.relay.Resume()
		waitReceived(t, checkpointRoutes+1, tables...)
		t.Log("no route lost across the restart; the Service created meanwhile reached the routers")
	})
	t.Run("negative control: the same restart without the checkpoint loses the routes", func(t *testing.T) {
		// The Service of the first part went with it (test cleanup).
		want := checkpointRoutes
		waitReceived(t, want, tables...)
		agent = killAndStartOffline(t, lab, agent, nodeName, "198.18.7.208/32", true)
		deadline := time.Now().Add((checkpointRestartTime + 30) * time.Second)
		for _, table := range tables {
			least := want
			for time.Now().Before(deadline) && least > 0 {
				if n, _, err := table.received(); err == nil {
					least = min(least, n)
				}
				time.Sleep(200 * time.Millisecond)
			}
			if least != 0 {
				t.Errorf("without the checkpoint %s still held %d routes %d s after the agent died: the control cannot tell", table, least, checkpointRestartTime+30)
			}
		}
		agent.relay.Resume()
		waitReceived(t, want, tables...)
	})
}

// killAndStartOffline SIGKILLs the agent (no graceful stop, no restart marker),
// optionally removes its checkpoint, and starts a new agent on the same state
// directory with its API server unreachable.
// It first waits until the checkpoint records last, the prefix the agent sent last.
func killAndStartOffline(t *testing.T, lab *netlab.Lab, a *agentProcess, node, last string, dropCheckpoint bool) *agentProcess {
	t.Helper()
	checkpoint := filepath.Join(a.stateDir, "checkpoint.json")
	netlab.WaitFor(t, 10*time.Second, 200*time.Millisecond, func() (bool, string) {
		data, err := os.ReadFile(checkpoint)
		return err == nil && strings.Contains(string(data), `"`+last+`"`), fmt.Sprintf("checkpoint records %s (%v)", last, err)
	})
	if err := a.proc.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if !a.proc.Wait(10 * time.Second) {
		t.Fatal("agent did not die within 10 s of SIGKILL")
	}
	if dropCheckpoint {
		if err := os.Remove(checkpoint); err != nil {
			t.Fatal(err)
		}
	}
	a.relay.Close()
	return startAgentProcess(t, lab, a.ns, node, a.stateDir, false)
}
