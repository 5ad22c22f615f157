package integration

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// TestOperatorProcess runs the real `kbgp operator` binary with leader election: it must
// render a node config and exit cleanly on SIGTERM.
func TestOperatorProcess(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "kbgp")
	build := exec.Command("go", "build", "-o", bin, "./cmd/kbgp")
	build.Dir = server.RepoRoot
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build kbgp: %v\n%s", err, out)
	}
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := server.WriteKubeconfig(kubeconfig, "operator-process"); err != nil {
		t.Fatal(err)
	}
	if err := server.EnsureNamespace(context.Background(), "kbgp-system"); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "operator.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	cmd := exec.Command(bin, "operator", "--kubeconfig", kubeconfig, "--leader-elect",
		"--leader-election-namespace", "kbgp-system", "--metrics-bind-address", "127.0.0.1:0",
		"--health-probe-bind-address", "127.0.0.1:0")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		if t.Failed() {
			out, _ := os.ReadFile(logPath)
			t.Logf("operator log:\n%s", out)
		}
	})

	ctx := context.Background()
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "process-1", Labels: map[string]string{"rack": "process"}}}
	if err := server.Client.Create(ctx, node); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = server.Client.Delete(context.Background(), node) })
	cc := newObject(t, "BGPClusterConfig", "nodeSelector: {matchLabels: {rack: process}}\n"+clusterInstance(""))
	if err := create(t, cc); err != nil {
		t.Fatal(err)
	}

	deadline := time.Now().Add(60 * time.Second)
	for {
		var nc kbgpv1.BGPNodeConfig
		err := server.Client.Get(ctx, types.NamespacedName{Name: "process-1"}, &nc)
		if err == nil && nc.Labels[kbgpv1.ClusterConfigLabel] == cc.GetName() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the operator process rendered no node config: %v", err)
		}
		select {
		case err := <-exited:
			t.Fatalf("the operator exited early: %v", err)
		case <-time.After(200 * time.Millisecond):
		}
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		var exitErr *exec.ExitError
		if errors.As(err, &exitErr) {
			t.Fatalf("the operator exited with %v on SIGTERM", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the operator did not stop within 30 s of SIGTERM")
	}
}
