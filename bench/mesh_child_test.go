//go:build bench

package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/log"
)

// meshChild is a process of this test binary running a group of the mesh's agents
// (TestMeshAgentProcess): a mesh too large for one process's open files is spread
// over several (meshGroups). It runs until its standard input closes, so it never
// outlives the test that started it.
type meshChild struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
}

// startMeshChild starts the agents of nodes first..first+count-1 in a child process
// that reaches the API server with kubeconfig. Its output goes to a file of the test's
// temporary directory.
func startMeshChild(t *testing.T, kubeconfig string, first, count int, statusInterval time.Duration) *meshChild {
	t.Helper()
	out, err := os.Create(filepath.Join(t.TempDir(), fmt.Sprintf("agents-%d.log", first)))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestMeshAgentProcess$", "-test.v", "-test.timeout=0")
	cmd.Env = append(os.Environ(), "KBGP_MESH_CHILD="+fmt.Sprintf("%d,%d", first, count),
		"KBGP_MESH_CHILD_KUBECONFIG="+kubeconfig, "KBGP_MESH_STATUS_INTERVAL="+statusInterval.String())
	cmd.Stdout, cmd.Stderr = out, out
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Logf("agents of mesh-%03d..mesh-%03d in process %d (log %s)", first, first+count-1, cmd.Process.Pid, out.Name())
	return &meshChild{cmd: cmd, stdin: stdin}
}

// stop closes the child's input, which ends it, and waits; one still running after a
// minute is killed (by its PID).
func (c *meshChild) stop(t *testing.T) {
	_ = c.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Logf("agent process %d: %v", c.cmd.Process.Pid, err)
		}
	case <-time.After(time.Minute):
		_ = c.cmd.Process.Kill()
		<-done
		t.Errorf("agent process %d did not end in a minute; killed", c.cmd.Process.Pid)
	}
}

// rss is the child's resident set size.
func (c *meshChild) rss() uint64 {
	rss, _, _ := procRSS(c.cmd.Process.Pid)
	return uint64(rss)
}

// TestMeshAgentProcess is a child of TestMeshConvergence, not a benchmark of its own:
// with $KBGP_MESH_CHILD ("first,count") it runs those nodes' agents against the API
// server of $KBGP_MESH_CHILD_KUBECONFIG until its standard input closes.
func TestMeshAgentProcess(t *testing.T) {
	group := os.Getenv("KBGP_MESH_CHILD")
	if group == "" {
		t.Skip("run by TestMeshConvergence only")
	}
	var first, count int
	if _, err := fmt.Sscanf(group, "%d,%d", &first, &count); err != nil {
		t.Fatalf("KBGP_MESH_CHILD=%q: %v", group, err)
	}
	log.SetLogger(logr.Discard())
	cfg, err := clientcmd.BuildConfigFromFlags("", os.Getenv("KBGP_MESH_CHILD_KUBECONFIG"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.QPS, cfg.Burst = 1000, 2000
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	runMeshAgents(ctx, &wg, cfg, first, count, envDuration(t, "KBGP_MESH_STATUS_INTERVAL", time.Second), t.TempDir())
	_, _ = io.Copy(io.Discard, os.Stdin) // until the parent closes it, or ends
	cancel()
	wg.Wait()
}
