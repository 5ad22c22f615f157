// Command kbgp-cluster runs the cluster of `make cluster` in the foreground: three
// nodes (containerd, kubelet, kube-proxy) and a control plane in network namespaces
// behind an FRR ToR, kbgp installed from config/cluster-lab, and the echo workload.
// It prints a table once everything is ready and runs until Ctrl-C (or SIGTERM),
// then removes every process, namespace, mount and cgroup it made.
//
//	kbgp-cluster --assets DIR [--repo DIR] [--ready-file FILE]
//
// With --ready-file it also writes four shell-sourceable lines there once ready
// (KUBECONFIG, ROUTER_NETNS, ROUTER_VTYSH, CLIENT_NETNS): `make cluster-up` waits for
// that file.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"sync"
	"syscall"
	"time"

	"kbgp.io/kbgp/test/cluster/kcluster"
)

func main() {
	repo := flag.String("repo", ".", "the kbgp repository (config/, sources of the images)")
	assets := flag.String("assets", os.Getenv("KUBEBUILDER_ASSETS"), "the Kubernetes binaries (hack/test-deps.sh --cluster prints it)")
	readyFile := flag.String("ready-file", "", "write the shell-sourceable environment here once ready")
	flag.Parse()
	if *assets == "" {
		fmt.Fprintln(os.Stderr, "kbgp-cluster: --assets (or $KUBEBUILDER_ASSETS) is required")
		os.Exit(2)
	}
	if os.Geteuid() != 0 {
		fmt.Fprintln(os.Stderr, "kbgp-cluster: must run as root (network namespaces, cgroups, mounts)")
		os.Exit(2)
	}
	r := &runner{}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		s := <-sig
		fmt.Fprintf(os.Stderr, "\nkbgp-cluster: %v: tearing down\n", s)
		r.teardown()
		os.Exit(0)
	}()
	c := kcluster.Up(r, kcluster.Config{Repo: *repo, Assets: *assets, Logf: r.Logf})
	fmt.Println()
	fmt.Print(c.Table())
	fmt.Println()
	fmt.Print(c.Shells())
	fmt.Println("\nCtrl-C stops the cluster and removes everything it made.")
	if *readyFile != "" {
		if err := os.WriteFile(*readyFile, []byte(c.Env()), 0o644); err != nil {
			r.Fatalf("kbgp-cluster: %v", err)
		}
	}
	select {}
}

// runner is what the cluster needs of its owner outside `go test` (netlab.TB):
// failures tear everything down and exit.
type runner struct {
	mu       sync.Mutex
	cleanups []func()
	failed   bool
	once     sync.Once
}

func (r *runner) Helper() {}

func (r *runner) Logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

func (r *runner) Errorf(format string, args ...any) {
	r.mu.Lock()
	r.failed = true
	r.mu.Unlock()
	r.Logf("ERROR: "+format, args...)
}

func (r *runner) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	r.teardown()
	os.Exit(1)
}

func (r *runner) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}

func (r *runner) Cleanup(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cleanups = append(r.cleanups, f)
}

// teardown runs the cleanups once, last registered first (as testing.T does).
func (r *runner) teardown() {
	r.once.Do(func() {
		r.mu.Lock()
		fs := slices.Clone(r.cleanups)
		r.mu.Unlock()
		slices.Reverse(fs)
		for _, f := range fs {
			f()
		}
	})
}
