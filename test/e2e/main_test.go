// Package e2e runs kbgp processes inside network namespaces against real routers (FRR,
// BIRD, gobgpd) in other namespaces and a real kube-apiserver, and checks the result
// from the routers' side. Topologies come from test/e2e/netlab.
package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"kbgp.io/kbgp/test/apiserver"
)

var (
	// server is the API server shared by the package's tests.
	server *apiserver.Server
	// kbgpBinary is `kbgp` built from this checkout, kbgpCNIBinary its CNI plugin.
	kbgpBinary    string
	kbgpCNIBinary string
	// kubectlBGPBinary is the kubectl plugin built from this checkout.
	kubectlBGPBinary string
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	log.SetLogger(logr.Discard())
	dir, err := os.MkdirTemp("", "kbgp-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	kbgpBinary = filepath.Join(dir, "kbgp")
	kbgpCNIBinary = filepath.Join(dir, "kbgp-cni")
	kubectlBGPBinary = filepath.Join(dir, "kubectl-bgp")
	s, err := apiserver.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	server = s
	defer func() {
		if err := s.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "e2e: stop api server:", err)
		}
	}()
	for bin, pkg := range map[string]string{kbgpBinary: "./cmd/kbgp", kbgpCNIBinary: "./cmd/kbgp-cni", kubectlBGPBinary: "./cmd/kubectl-bgp"} {
		build := exec.Command("go", "build", "-o", bin, pkg)
		build.Dir = s.RepoRoot
		if out, err := build.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "e2e: build %s: %v\n%s", pkg, err, out)
			return 1
		}
	}
	return m.Run()
}

// independent runs a test beside the other independent ones, after the sequential
// tests. A test qualifies when its topology and API objects are its own (names from its
// lab's prefix, no Service another test's advertisement could select), it runs no
// operator (an operator acts on every node's config, and deletes those no cluster
// config selects) and nothing it asserts is a timing that CPU shared with another test
// could stretch (graceful-restart sampling, BFD detection and the like stay sequential).
func independent(t *testing.T) {
	t.Parallel()
}
