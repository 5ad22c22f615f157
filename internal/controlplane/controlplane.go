// Package controlplane starts a real kube-apiserver and etcd (controller-runtime's
// envtest) with kbgp's CRDs installed: the Kubernetes of `kbgp-lab` and of the tests.
//
// The binaries come from hack/test-deps.sh, which builds them from the Go module proxy
// (setup-envtest downloads are refused on the development network) into a cache
// directory this package finds by itself.
package controlplane

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"kbgp.io/kbgp/config/crd"
)

// K8sVersion is the kube-apiserver version hack/test-deps.sh builds.
const K8sVersion = "v1.34.4"

// ControlPlane is a running kube-apiserver + etcd.
type ControlPlane struct {
	env *envtest.Environment
	// Config reaches the API server as an administrator.
	Config *rest.Config
	// Assets is the directory of the binaries (kube-apiserver, etcd, kubectl).
	Assets string
	// users serializes the users' creation: envtest's certificate authority numbers
	// its certificates with a counter it does not lock, and parallel tests add users.
	users sync.Mutex
}

// Start starts etcd and kube-apiserver and installs kbgp's CRDs.
func Start() (*ControlPlane, error) {
	assets, err := AssetsDir()
	if err != nil {
		return nil, err
	}
	defs, err := crd.Definitions()
	if err != nil {
		return nil, fmt.Errorf("read embedded CRDs: %w", err)
	}
	env := &envtest.Environment{BinaryAssetsDirectory: assets, CRDs: defs}
	// Dual-stack Services, and room for thousands of them (envtest's default is one
	// IPv4 /24). These ranges are only the API server's allocations: nothing on any
	// network uses them.
	env.ControlPlane.GetAPIServer().Configure().Set("service-cluster-ip-range", ServiceClusterIPRanges)
	cfg, err := env.Start()
	if err != nil {
		// Start can fail after etcd and kube-apiserver are up (e.g. a CRD the server
		// refuses): stop them so no daemon outlives the caller.
		_ = env.Stop()
		return nil, fmt.Errorf("start kube-apiserver and etcd from %s: %w", assets, err)
	}
	return &ControlPlane{env: env, Config: cfg, Assets: assets}, nil
}

// ServiceClusterIPRanges are the cluster-IP ranges of the API server: IPv4 and IPv6.
const ServiceClusterIPRanges = "10.96.0.0/16,fd98:4b67:9c1e::/112"

// Stop stops kube-apiserver and etcd and removes their data.
func (c *ControlPlane) Stop() error { return c.env.Stop() }

// UserConfig returns a rest.Config for a new user with the given name and groups and
// no other rights.
func (c *ControlPlane) UserConfig(name string, groups ...string) (*rest.Config, error) {
	user, err := c.addUser(envtest.User{Name: name, Groups: groups})
	if err != nil {
		return nil, err
	}
	return user.Config(), nil
}

// WriteKubeconfig writes a kubeconfig for a new member of system:masters to path.
func (c *ControlPlane) WriteKubeconfig(path, user string) error {
	u, err := c.addUser(envtest.User{Name: user, Groups: []string{"system:masters"}})
	if err != nil {
		return err
	}
	data, err := u.KubeConfig()
	if err != nil {
		return fmt.Errorf("kubeconfig of %s: %w", user, err)
	}
	return os.WriteFile(path, data, 0o600)
}

// addUser adds a user with a client certificate of its own, one user at a time.
func (c *ControlPlane) addUser(u envtest.User) (*envtest.AuthenticatedUser, error) {
	c.users.Lock()
	defer c.users.Unlock()
	user, err := c.env.ControlPlane.AddUser(u, c.Config)
	if err != nil {
		return nil, fmt.Errorf("add user %s: %w", u.Name, err)
	}
	return user, nil
}

// AssetsDir finds the envtest binaries: $KUBEBUILDER_ASSETS, else the cache that
// hack/test-deps.sh fills.
func AssetsDir() (string, error) {
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
