package kcluster

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"kbgp.io/kbgp/test/e2e/netlab"
)

// Node is one cluster node: a network namespace on the rack's LAN, a mount namespace
// of its own in which /etc, /opt and /var are overlays of this machine's (so the
// shipped manifests' hostPaths — /etc/cni/net.d, /opt/cni/bin, /var/lib/kbgp — are
// the node's, and nothing is written to this machine's) and /run is empty, a cgroup
// subtree holding every process it runs, and containerd, the kubelet and kube-proxy.
type Node struct {
	c     *Cluster
	Index int
	Name  string
	NS    *netlab.Namespace
	IPv4  string
	IPv6  string

	dir    string
	cgroup string
	holder *netlab.Process
}

func (n *Node) path(elem ...string) string { return filepath.Join(append([]string{n.dir}, elem...)...) }

func (n *Node) mntNS() string { return fmt.Sprintf("/proc/%d/ns/mnt", n.holder.PID()) }

// boot starts the node's mount namespace, containerd (importing the images), the
// kubelet and kube-proxy; after a reboot the disk (upper directories, containerd's
// root, the kubelet's root) is kept and /run is new.
func (n *Node) boot() error {
	if err := makeCgroup(n.cgroup); err != nil {
		return err
	}
	if err := n.startMountNamespace(); err != nil {
		return err
	}
	if err := n.startContainerd(); err != nil {
		return err
	}
	if err := n.startKubelet(); err != nil {
		return err
	}
	return n.startKubeProxy()
}

// start runs args in the node: in its cgroup, network and mount namespaces.
func (n *Node) start(name string, args ...string) (*netlab.Process, error) {
	argv := []string{"sh", "-c", `echo $$ > "$0/cgroup.procs" && exec "$@"`, daemonsCgroup(n.cgroup),
		"nsenter", "--net=" + n.NS.Path(), "--mount=" + n.mntNS(), "--"}
	return n.NS.StartArgv(name, nil, append(argv, args...))
}

// inMount runs a short command in the node's mount namespace.
func (n *Node) inMount(args ...string) error {
	cmd := exec.Command("nsenter", append([]string{"--mount=" + n.mntNS(), "--"}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %v: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

func (n *Node) startMountNamespace() error {
	argv := []string{"sh", "-c", `echo $$ > "$0/cgroup.procs" && exec "$@"`, daemonsCgroup(n.cgroup),
		"nsenter", "--net=" + n.NS.Path(), "--", "unshare", "--mount", "--propagation", "private", "sleep", "infinity"}
	p, err := n.NS.StartArgv("mountns", nil, argv)
	if err != nil {
		return err
	}
	n.holder = p
	self, _ := os.Readlink("/proc/self/ns/mnt")
	if err := netlab.Poll(10*time.Second, 20*time.Millisecond, func() (bool, string) {
		got, _ := os.Readlink(n.mntNS())
		return got != "" && got != self, "waiting for unshare --mount"
	}); err != nil {
		return err
	}
	// The CNI plugins a user installs with the plugins package (bridge, host-local,
	// loopback, portmap), where the shipped manifests expect them.
	if err := copyDir("/usr/lib/cni", n.path("opt.upper", "cni", "bin")); err != nil {
		return err
	}
	for _, d := range []string{"etc", "opt", "var"} {
		for _, sub := range []string{d + ".upper", d + ".work"} {
			if err := os.MkdirAll(n.path(sub), 0o755); err != nil {
				return err
			}
		}
		opts := fmt.Sprintf("lowerdir=/%s,upperdir=%s,workdir=%s", d, n.path(d+".upper"), n.path(d+".work"))
		if err := n.inMount("mount", "-t", "overlay", "overlay", "-o", opts, "/"+d); err != nil {
			return err
		}
	}
	if err := n.inMount("mount", "-t", "tmpfs", "-o", "mode=0755", "tmpfs", "/run"); err != nil {
		return err
	}
	return n.inMount("mkdir", "-p", "/run/netns")
}

func (n *Node) containerdSock() string { return n.path("containerd", "containerd.sock") }

func (n *Node) startContainerd() error {
	conf := fmt.Sprintf(`version = 2
root = %[1]q
state = %[2]q
disabled_plugins = ["io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.devmapper"]
[grpc]
  address = %[3]q
[ttrpc]
  address = "%[3]s.ttrpc"
[plugins."io.containerd.internal.v1.opt"]
  path = %[4]q
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = %[5]q
  enable_selinux = false
  # This machine's root lacks CAP_SYS_RESOURCE: no process may lower its OOM score,
  # and runc fails to start a pod asking for -998 (system-node-critical, the agent).
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/opt/cni/bin"
    conf_dir = "/etc/cni/net.d"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        Root = %[6]q
`, n.path("containerd", "root"), n.path("containerd", "state"), n.containerdSock(), n.path("containerd", "opt"),
		PauseImage, n.path("containerd", "runc"))
	confPath := n.path("containerd.toml")
	if err := writeFile(confPath, conf); err != nil {
		return err
	}
	// After a power cut the old socket file is still there: wait for the new one.
	if err := os.Remove(n.containerdSock()); err != nil && !os.IsNotExist(err) {
		return err
	}
	if _, err := n.start("containerd", "containerd", "--config", confPath); err != nil {
		return err
	}
	if err := netlab.Poll(30*time.Second, 100*time.Millisecond, func() (bool, string) {
		_, err := os.Stat(n.containerdSock())
		return err == nil, "waiting for " + n.containerdSock()
	}); err != nil {
		return err
	}
	for _, img := range n.c.images {
		out, err := exec.Command("ctr", "--address", n.containerdSock(), "-n", "k8s.io", "images", "import", img.path).CombinedOutput()
		if err != nil {
			return fmt.Errorf("ctr images import %s: %v: %s", img.ref, err, out)
		}
	}
	return nil
}

func (n *Node) startKubelet() error {
	conf := fmt.Sprintf(`apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cgroupDriver: cgroupfs
cgroupRoot: /%s
failCgroupV1: false
failSwapOn: false
podLogsDir: %s
containerRuntimeEndpoint: unix://%s
authentication:
  anonymous:
    enabled: true
  webhook:
    enabled: false
authorization:
  mode: AlwaysAllow
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
resolvConf: /etc/resolv.conf
serializeImagePulls: false
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard:
  memory.available: 100Mi
  nodefs.available: 1%%
  nodefs.inodesFree: 1%%
  imagefs.available: 1%%
shutdownGracePeriod: 0s
`, n.cgroup, n.path("pod-logs"), n.containerdSock())
	confPath := n.path("kubelet.yaml")
	if err := writeFile(confPath, conf); err != nil {
		return err
	}
	_, err := n.start("kubelet", n.c.asset("kubelet"), "--config="+confPath,
		"--kubeconfig="+n.c.kubeconfigs["system:node:"+n.Name],
		"--root-dir="+n.path("kubelet"), "--cert-dir="+n.path("kubelet-pki"),
		"--hostname-override="+n.Name, "--node-ip="+n.IPv4+","+n.IPv6, "--v=1")
	return err
}

func (n *Node) startKubeProxy() error {
	conf := fmt.Sprintf(`apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: iptables
clientConnection:
  kubeconfig: %s
hostnameOverride: %s
clusterCIDR: %s,%s
metricsBindAddress: 127.0.0.1:10249
healthzBindAddress: 127.0.0.1:10256
conntrack:
  maxPerCore: 0
  min: 0
  tcpEstablishedTimeout: 0s
  tcpCloseWaitTimeout: 0s
`, n.c.kubeconfigs["system:kube-proxy"], n.Name, ClusterPodCIDRv4, ClusterPodCIDRv6)
	confPath := n.path("kube-proxy.yaml")
	if err := writeFile(confPath, conf); err != nil {
		return err
	}
	_, err := n.start("kube-proxy", n.c.asset("kube-proxy"), "--config="+confPath, "--v=1")
	return err
}

// PowerOff kills every process of the node (kubelet, containerd, kube-proxy, the
// agent and every pod) at once, as a power cut would; its mount namespace (/run,
// the pods' network namespaces) goes with them. Its network namespace (links,
// addresses, kernel routes) stays: a test removes what a reboot would lose.
func (n *Node) PowerOff() error { return n.shutdown() }

// Boot starts the node again after PowerOff, from its disk: the overlays' upper
// directories, containerd's root and the kubelet's root.
func (n *Node) Boot() error { return n.boot() }

// shutdown kills the node's processes and frees its mount namespace.
func (n *Node) shutdown() error {
	if err := killCgroup(n.cgroup); err != nil {
		return err
	}
	return removeCgroup(n.cgroup)
}

// copyDir copies the regular files of src into dst (created).
func copyDir(src, dst string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o755); err != nil {
			return err
		}
	}
	return nil
}
