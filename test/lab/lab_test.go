// Package lab runs `kbgp-lab` as a user would: the built binary, which starts its own
// API server, operator, agents and upstream router. It is the end-to-end test of the
// whole pipeline that needs neither root nor network namespaces.
package lab

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// build compiles pkg from this checkout into dir.
func build(t *testing.T, dir, pkg string) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	bin := filepath.Join(dir, filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-o", bin, pkg)
	cmd.Dir = filepath.Join(filepath.Dir(file), "..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// TestLabOnce is the README's quick start: `kbgp-lab --once` exits 0 only when every
// session is Established and the upstream router has exactly the expected routes.
func TestLabOnce(t *testing.T) {
	dir := t.TempDir()
	kbgp := build(t, dir, "./cmd/kbgp-lab")
	out, err := exec.Command(kbgp, "--once", "--timeout", "2m", "--dir", filepath.Join(dir, "lab")).CombinedOutput()
	if err != nil {
		t.Fatalf("kbgp-lab --once: %v\n%s", err, out)
	}
	for _, want := range []string{
		"Every session is Established and every expected route arrived.",
		"lab-node-1  65001     10.99.0.1 ",
		"hash-from-node-name  upstream  Established",
		"lab-node-3  65001     10.0.0.3       node-ipv4",
		"127.0.1.3  100.64.0.11/32",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestLabOnceWithFRR runs the lab with FRR's bgpd as the upstream router (root and
// Debian's frr package, both present in CI): the same answer key must hold.
func TestLabOnceWithFRR(t *testing.T) {
	dir := t.TempDir()
	kbgp := build(t, dir, "./cmd/kbgp-lab")
	out, err := exec.Command(kbgp, "--once", "--router=frr", "--timeout", "2m", "--dir", filepath.Join(dir, "lab")).CombinedOutput()
	if err != nil {
		t.Fatalf("kbgp-lab --once --router=frr: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "Every session is Established and every expected route arrived.") {
		t.Errorf("output:\n%s", out)
	}
}

// TestLabOnceFailsWhenNotReady proves the exit status means something: with no time
// to come up, --once reports what is missing and exits non-zero.
func TestLabOnceFailsWhenNotReady(t *testing.T) {
	dir := t.TempDir()
	kbgp := build(t, dir, "./cmd/kbgp-lab")
	out, err := exec.Command(kbgp, "--once", "--timeout", "1ms", "--dir", filepath.Join(dir, "lab")).CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("kbgp-lab --once with no time to come up: err %v, want a non-zero exit\n%s", err, out)
	}
	if !strings.Contains(string(out), "Not as expected:") {
		t.Errorf("output does not say what is missing:\n%s", out)
	}
}

// TestLabRunsUntilInterrupted runs the lab as `make lab` does, uses its kubeconfig
// with the kubectl plugin while it runs, then interrupts it: it exits 0 and leaves
// none of the processes it started.
func TestLabRunsUntilInterrupted(t *testing.T) {
	dir := t.TempDir()
	kbgp := build(t, dir, "./cmd/kbgp-lab")
	plugin := build(t, dir, "./cmd/kubectl-bgp")
	labDir := filepath.Join(dir, "lab")
	cmd := exec.Command(kbgp, "--dir", labDir)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })

	var output bytes.Buffer
	running := make(chan struct{})
	go func() {
		scanner := bufio.NewScanner(io.TeeReader(stdout, &output))
		for scanner.Scan() {
			if strings.Contains(scanner.Text(), "press Ctrl-C") {
				close(running)
			}
		}
	}()
	select {
	case <-running:
	case <-time.After(3 * time.Minute):
		t.Fatalf("lab did not come up:\n%s\n%s", output.String(), stderr.String())
	}
	children := childPIDs(t, cmd.Process.Pid)
	if len(children) < 2 {
		t.Fatalf("lab runs %d child processes %v, want etcd and kube-apiserver", len(children), children)
	}

	peers := exec.Command(plugin, "peers", "--kubeconfig", filepath.Join(labDir, "kubeconfig"))
	got, err := peers.CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl bgp peers against the lab: %v\n%s", err, got)
	}
	if n := strings.Count(string(got), "Established"); n != 3 {
		t.Errorf("kubectl bgp peers shows %d Established sessions, want 3:\n%s", n, got)
	}

	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("lab after Ctrl-C: %v\n%s\n%s", err, output.String(), stderr.String())
	}
	for _, pid := range children {
		if syscall.Kill(pid, 0) == nil {
			t.Errorf("process %d started by the lab still runs after it exited", pid)
		}
	}
}

// childPIDs lists the direct children of pid from /proc.
func childPIDs(t *testing.T, pid int) []int {
	t.Helper()
	tasks, err := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "children"))
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, task := range tasks {
		data, err := os.ReadFile(task)
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(data)) {
			if n, err := strconv.Atoi(f); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}
