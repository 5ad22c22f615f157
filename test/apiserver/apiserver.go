// Package apiserver starts a real kube-apiserver and etcd (internal/controlplane)
// with kbgp's CRDs installed, for integration tests.
//
// The binaries come from hack/test-deps.sh, which builds them from the Go module proxy
// because setup-envtest downloads are refused on this network. A missing binary is a
// test failure with instructions, never a skip: a test that cannot run must not pass.
package apiserver

import (
	"fmt"
	"path/filepath"
	"runtime"

	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/controlplane"
)

// Server is a running API server with kbgp's CRDs installed.
type Server struct {
	*controlplane.ControlPlane
	// Client is a controller-runtime client that knows the core and kbgp kinds.
	Client client.Client
	// RepoRoot is the repository's root directory.
	RepoRoot string
}

// Start starts etcd and kube-apiserver and installs the CRDs of config/crd/bases.
func Start() (*Server, error) {
	if err := kbgpv1.AddToScheme(scheme.Scheme); err != nil {
		return nil, fmt.Errorf("register kbgp types: %w", err)
	}
	cp, err := controlplane.Start()
	if err != nil {
		return nil, err
	}
	c, err := client.New(cp.Config, client.Options{Scheme: scheme.Scheme})
	if err != nil {
		_ = cp.Stop()
		return nil, fmt.Errorf("build client: %w", err)
	}
	return &Server{ControlPlane: cp, Client: c, RepoRoot: repoRoot()}, nil
}

// Kubectl is the path of the kubectl built with the assets.
func (s *Server) Kubectl() string { return filepath.Join(s.Assets, "kubectl") }

// repoRoot is two directories above this file.
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}
