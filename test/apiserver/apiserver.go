// Package apiserver starts a real kube-apiserver and etcd (controller-runtime envtest)
// with kbgp's CRDs installed, for integration tests.
//
// The binaries come from hack/test-deps.sh, which builds them from the Go module proxy
// because setup-envtest downloads are refused on this network. A missing binary is a
// test failure with instructions, never a skip: a test that cannot run must not pass.
package apiserver

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// K8sVersion is the kube-apiserver version hack/test-deps.sh builds.
const K8sVersion = "v1.34.4"

// Server is a running API server with kbgp's CRDs installed.
type Server struct {
	env *envtest.Environment
	// Config reaches the API server as an administrator.
	Config *rest.Config
	// Client is a controller-runtime client that knows the core and kbgp kinds.
	Client client.Client
	// RepoRoot is the repository's root directory.
	RepoRoot string
	assets   string
}

// Start starts etcd and kube-apiserver and installs the CRDs of config/crd/bases.
func Start() (*Server, error) {
	root := repoRoot()
	assets, err := assetsDir()
	if err != nil {
		return nil, err
	}
	if err := kbgpv1.AddToScheme(scheme.Scheme); err != nil {
		return nil, fmt.Errorf("register kbgp types: %w", err)
	}
	env := &envtest.Environment{
		BinaryAssetsDirectory: assets,
		CRDDirectoryPaths:     []string{filepath.Join(root, "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
	}
	cfg, err := env.Start()
	if err != nil {
		// Start can fail after etcd and kube-apiserver are up (e.g. a CRD the server
		// refuses): stop them so no daemon outlives the test.
		_ = env.Stop()
		return nil, fmt.Errorf("start kube-apiserver and etcd from %s: %w", assets, err)
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme.Scheme})
	if err != nil {
		_ = env.Stop()
		return nil, fmt.Errorf("build client: %w", err)
	}
	return &Server{env: env, Config: cfg, Client: c, RepoRoot: root, assets: assets}, nil
}

// Kubectl is the path of the kubectl built with the assets.
func (s *Server) Kubectl() string { return filepath.Join(s.assets, "kubectl") }

// Stop stops kube-apiserver and etcd and removes their data.
func (s *Server) Stop() error { return s.env.Stop() }

// assetsDir finds the envtest binaries: $KUBEBUILDER_ASSETS, else the cache that
// hack/test-deps.sh fills.
func assetsDir() (string, error) {
	dir := os.Getenv("KUBEBUILDER_ASSETS")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("find cache dir: %w", err)
		}
		dir = filepath.Join(cache, "kbgp", "envtest-"+K8sVersion)
	}
	for _, bin := range []string{"kube-apiserver", "etcd"} {
		if _, err := os.Stat(filepath.Join(dir, bin)); err != nil {
			return "", errors.New("envtest assets missing in " + dir +
				": run hack/test-deps.sh (or make test) and set KUBEBUILDER_ASSETS to the directory it prints")
		}
	}
	return dir, nil
}

// repoRoot is two directories above this file.
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// UserConfig returns a rest.Config for a new user with the given name and groups and
// no other rights: tests bind it to kbgp's generated roles to prove they suffice.
func (s *Server) UserConfig(name string, groups ...string) (*rest.Config, error) {
	user, err := s.env.ControlPlane.AddUser(envtest.User{Name: name, Groups: groups}, s.Config)
	if err != nil {
		return nil, fmt.Errorf("add user %s: %w", name, err)
	}
	return user.Config(), nil
}

// WriteKubeconfig writes a kubeconfig for a new member of system:masters to path, for
// kbgp processes started by tests.
func (s *Server) WriteKubeconfig(path, user string) error {
	u, err := s.env.ControlPlane.AddUser(envtest.User{Name: user, Groups: []string{"system:masters"}}, s.Config)
	if err != nil {
		return fmt.Errorf("add user %s: %w", user, err)
	}
	data, err := u.KubeConfig()
	if err != nil {
		return fmt.Errorf("kubeconfig of %s: %w", user, err)
	}
	return os.WriteFile(path, data, 0o600)
}
