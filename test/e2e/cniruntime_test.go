package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/containernetworking/cni/libcni"
	types100 "github.com/containernetworking/cni/pkg/types/100"
	"github.com/vishvananda/netns"

	"kbgp.io/kbgp/internal/cni"
	"kbgp.io/kbgp/test/e2e/netlab"
)

// debianCNIDir is where Debian's containernetworking-plugins installs the plugins.
const debianCNIDir = "/usr/lib/cni"

// cniRuntime drives one node's CNI configuration as a container runtime does: libcni
// from inside the node's namespace, with a bin dir of Debian's plugins and kbgp-cni (the
// built cmd/kbgp-cni), and its results cache in a temporary directory
// (never /var/lib/cni).
type cniRuntime struct {
	t      *testing.T
	node   *netlab.Namespace
	list   *libcni.NetworkConfigList
	lo     *libcni.NetworkConfig
	config *libcni.CNIConfig
}

// cniPod is one pod: its namespace and the runtime arguments libcni passes for it.
type cniPod struct {
	ns  *netlab.Namespace
	rt  *libcni.RuntimeConf
	ip4 netip.Addr
	ip6 netip.Addr
	// gateway4 is the IPv4 gateway of the result.
	gateway4 netip.Addr
}

// newCNIRuntime reads the node's configuration list at confPath, waiting for it (the
// agent writes it once it sees the Node's pod CIDRs).
func newCNIRuntime(t *testing.T, node *netlab.Namespace, confPath string) *cniRuntime {
	t.Helper()
	for _, p := range []string{"bridge", "host-local", "portmap", "loopback"} {
		if _, err := os.Stat(filepath.Join(debianCNIDir, p)); err != nil {
			t.Fatalf("Debian's CNI plugin %s: %v (apt-get install containernetworking-plugins)", p, err)
		}
	}
	binDir := t.TempDir()
	cniCopyFile(t, kbgpCNIBinary, filepath.Join(binDir, cni.PluginType), 0o755)
	for _, p := range []string{"bridge", "host-local", "portmap", "loopback"} {
		if err := os.Symlink(filepath.Join(debianCNIDir, p), filepath.Join(binDir, p)); err != nil {
			t.Fatal(err)
		}
	}
	var conf []byte
	netlab.WaitFor(t, 30*time.Second, 200*time.Millisecond, func() (bool, string) {
		var err error
		conf, err = os.ReadFile(confPath)
		return err == nil, fmt.Sprintf("the node's CNI configuration: %v", err)
	})
	list, err := libcni.ConfListFromBytes(conf)
	if err != nil {
		t.Fatal(err)
	}
	lo, err := libcni.ConfFromBytes([]byte(`{"cniVersion": "1.0.0", "name": "cni-loopback", "type": "loopback"}`))
	if err != nil {
		t.Fatal(err)
	}
	return &cniRuntime{t: t, node: node, list: list, lo: lo, config: libcni.NewCNIConfigWithCacheDir([]string{binDir}, t.TempDir(), nil)}
}

// newPod makes the pod's namespace and runtime arguments, as kubelet's runtimes pass
// them.
func (r *cniRuntime) newPod(name string) *cniPod {
	ns := r.node.Lab().Namespace(name)
	id := fmt.Sprintf("%s-%d", ns.Name, os.Getpid())
	return &cniPod{ns: ns, rt: &libcni.RuntimeConf{
		ContainerID: id,
		NetNS:       "/run/netns/" + ns.Name,
		IfName:      "eth0",
		Args: [][2]string{
			{"IgnoreUnknown", "1"},
			{"K8S_POD_NAMESPACE", "default"},
			{"K8S_POD_NAME", name},
			{"K8S_POD_INFRA_CONTAINER_ID", id},
		},
	}}
}

// add runs ADD for the pod's loopback and network and returns the network's result.
func (r *cniRuntime) add(p *cniPod) *types100.Result {
	r.t.Helper()
	var res *types100.Result
	err := inNetns(r.node.Name, func(ctx context.Context) error {
		loRT := *p.rt
		loRT.IfName = "lo"
		if _, err := r.config.AddNetwork(ctx, r.lo, &loRT); err != nil {
			return fmt.Errorf("loopback: %w", err)
		}
		got, err := r.config.AddNetworkList(ctx, r.list, p.rt)
		if err != nil {
			return err
		}
		res, err = types100.NewResultFromResult(got)
		return err
	})
	if err != nil {
		r.t.Fatalf("ADD %s: %v", p.ns.Short, err)
	}
	r.t.Logf("ADD %s: %s", p.ns.Short, cniJSON(r.t, res))
	for _, ipc := range res.IPs {
		a, _ := netip.AddrFromSlice(ipc.Address.IP)
		if a = a.Unmap(); a.Is4() {
			p.ip4 = a
			p.gateway4, _ = netip.AddrFromSlice(ipc.Gateway.To4())
		} else {
			p.ip6 = a
		}
	}
	return res
}

// check runs CHECK for the pod.
func (r *cniRuntime) check(p *cniPod) error {
	return inNetns(r.node.Name, func(ctx context.Context) error { return r.config.CheckNetworkList(ctx, r.list, p.rt) })
}

// del runs DEL for the pod.
func (r *cniRuntime) del(p *cniPod) {
	r.t.Helper()
	if err := inNetns(r.node.Name, func(ctx context.Context) error { return r.config.DelNetworkList(ctx, r.list, p.rt) }); err != nil {
		r.t.Fatalf("DEL %s: %v", p.ns.Short, err)
	}
}

// inNetns runs fn on an OS thread switched into the named network namespace, as a
// container runtime running in the node's namespace would: libcni execs the plugins from
// that thread, so they start in that namespace. The thread goes back to the original
// namespace afterwards; if it cannot, it stays locked and dies with its goroutine.
func inNetns(name string, fn func(ctx context.Context) error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		orig, err := netns.Get()
		if err != nil {
			runtime.UnlockOSThread()
			errc <- err
			return
		}
		defer orig.Close()
		target, err := netns.GetFromName(name)
		if err != nil {
			runtime.UnlockOSThread()
			errc <- err
			return
		}
		defer target.Close()
		if err := netns.Set(target); err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("setns %s: %w", name, err)
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		ferr := fn(ctx)
		cancel()
		if err := netns.Set(orig); err == nil {
			runtime.UnlockOSThread()
		}
		errc <- ferr
	}()
	return <-errc
}

// tcpAnswers connects from ns to target (a socat address) until the answer is want.
func tcpAnswers(t *testing.T, ns *netlab.Namespace, target, want string) {
	t.Helper()
	netlab.WaitFor(t, 20*time.Second, 300*time.Millisecond, func() (bool, string) {
		out, err := ns.ExecTimeout(5*time.Second, "socat", "-T2", "-", target+",connect-timeout=2")
		return err == nil && strings.TrimSpace(out) == want, fmt.Sprintf("TCP from %s to %s: %q %v", ns.Short, target, out, err)
	})
}

func cniCopyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

func cniJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
