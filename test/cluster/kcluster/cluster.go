// Package kcluster runs a real Kubernetes cluster on this machine for kbgp's
// cluster tests and `make cluster`: a control plane (etcd, kube-apiserver,
// kube-controller-manager with node IPAM, kube-scheduler) and nodes (containerd,
// kubelet, kube-proxy in iptables mode), each in network namespaces of their own on
// a rack LAN behind an FRR ToR with zebra and a client network, and kbgp installed
// from the shipped kustomize directories (config/cluster-lab) from images built here.
//
// Everything lives in namespaces, cgroups and one temporary directory the cluster
// creates; teardown kills its processes by cgroup and PID, and frees the rest.
package kcluster

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"kbgp.io/kbgp/test/e2e/netlab"
)

// Config is what Up needs.
type Config struct {
	// Repo is the repository's root: config/, the image's sources.
	Repo string
	// Assets holds kube-apiserver, kube-controller-manager, kube-scheduler, kubelet,
	// kube-proxy and kubectl (hack/test-deps.sh prints it).
	Assets string
	// Nodes is the number of nodes (3 when 0).
	Nodes int
	// Logf reports progress (nil: silent).
	Logf func(format string, args ...any)
}

// Cluster is a running cluster.
type Cluster struct {
	cfg Config
	t   netlab.TB
	lab *netlab.Lab
	dir string

	pki         *pki
	kubeconfigs map[string]string
	images      []imageArchive

	// Kubeconfig is the administrator's kubeconfig for this machine (the API server
	// through a forwarder on 127.0.0.1).
	Kubeconfig string
	Kube       kubernetes.Interface
	// cp holds the control plane, on the rack's LAN.
	cp *netlab.Namespace
	// ClientNS is the client network behind the ToR.
	ClientNS *netlab.Namespace
	// Tor is the rack's router: FRR with zebra, multipath.
	Tor   *netlab.FRR
	Nodes []*Node
}

// Up builds the images, starts the cluster and installs kbgp with the echo workload;
// it returns once every node is Ready, every agent is Ready with its session
// Established, and the echo Service's address answers from the client network.
// Failures go to t.Fatalf; t's cleanups tear everything down.
func Up(t netlab.TB, cfg Config) *Cluster {
	t.Helper()
	if cfg.Nodes == 0 {
		cfg.Nodes = 3
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	lab := netlab.New(t)
	c := &Cluster{cfg: cfg, t: t, lab: lab, dir: lab.Dir()}
	start := time.Now()
	step := func(what string) { cfg.Logf("cluster: %s (%s)", what, time.Since(start).Round(time.Second)) }

	step("building the kbgp, pause and echo images")
	imgs, err := buildImages(cfg.Repo, filepath.Join(c.dir, "images"))
	if err != nil {
		t.Fatalf("kcluster: %v", err)
	}
	c.images = imgs

	step("wiring the rack: ToR, control plane, nodes, client")
	c.wire()
	step("starting etcd, kube-apiserver, kube-controller-manager, kube-scheduler")
	c.startControlPlane()
	kcfg, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	if err != nil {
		t.Fatalf("kcluster: %v", err)
	}
	c.Kube = kubernetes.NewForConfigOrDie(kcfg)

	for _, n := range c.Nodes {
		step("booting " + n.Name + ": containerd (images imported), kubelet, kube-proxy")
		t.Cleanup(func() {
			if err := n.shutdown(); err != nil {
				t.Errorf("kcluster: %s: %v", n.Name, err)
			}
		})
		if err := n.boot(); err != nil {
			t.Fatalf("kcluster: %s: %v", n.Name, err)
		}
	}
	step("installing kbgp: kubectl apply -k config/cluster-lab, then config/cluster-lab/bgp")
	c.installKbgp()
	step("waiting for every node to be Ready (the agents write the CNI configuration)")
	netlab.WaitFor(t, 4*time.Minute, time.Second, c.nodesReady)
	step("deploying the echo workload")
	c.MustKubectl("apply", "-f", filepath.Join(cfg.Repo, "test/cluster/testdata/echo.yaml"))
	step("waiting for nodes, agents, sessions and the echo Service")
	c.WaitReady(5 * time.Minute)
	step("ready")
	return c
}

// wire builds the namespaces: the ToR joins the rack's LAN (a bridge) and the client
// network; the control plane and the nodes sit on the LAN with the ToR as their
// default gateway.
func (c *Cluster) wire() {
	t := c.t
	t.Helper()
	tor := c.lab.Namespace("tor")
	tor.SetForwarding(true)
	// Hash flows over the ECMP next hops by their ports too, so one client's
	// connections reach more than one node.
	if out, err := tor.Exec("sysctl", "-q", "-w", "net.ipv4.fib_multipath_hash_policy=1",
		"net.ipv6.fib_multipath_hash_policy=1"); err != nil {
		t.Fatalf("kcluster: %v: %s", err, out)
	}
	lan := c.lab.Bridge("lan")
	lan.Attach(tor, "lan", []string{torLANv4 + "/24", torLANv6 + "/64"})
	c.cp = c.lab.Namespace("cp")
	lan.Attach(c.cp, "eth0", []string{APIServerIP + "/24", cpLANv6 + "/64"})
	c.cp.AddRoute("default", torLANv4)
	c.ClientNS = c.lab.Namespace("client")
	c.lab.Link(tor, "client", []string{torClientV4 + "/24", torClientV6 + "/64"},
		c.ClientNS, "eth0", []string{ClientV4 + "/24", ClientV6 + "/64"})
	c.ClientNS.AddRoute("default", torClientV4)
	c.ClientNS.AddRoute("default", torClientV6)
	run := filepath.Base(c.dir)
	for i := 1; i <= c.cfg.Nodes; i++ {
		ns := c.lab.Namespace(nodeName(i))
		n := &Node{c: c, Index: i, Name: nodeName(i), NS: ns, IPv4: nodeV4(i), IPv6: nodeV6(i),
			dir: filepath.Join(c.dir, nodeName(i)), cgroup: run + "-" + nodeName(i)}
		lan.Attach(ns, "eth0", []string{n.IPv4 + "/24", n.IPv6 + "/64"})
		ns.AddRoute("default", torLANv4)
		ns.AddRoute("default", torLANv6)
		ns.SetForwarding(true)
		c.Nodes = append(c.Nodes, n)
	}
	c.Tor = netlab.StartFRR(tor, netlab.FRRConfig{ASN: TorASN, RouterID: torLANv4, Zebra: true,
		RawConfig: torBGPConfig(c.Nodes)})
}

// torBGPConfig is the ToR's "router bgp" body: one eBGP neighbor per node, IPv4 and
// IPv6 routes over the IPv4 session, ECMP over the nodes announcing one address
// (multipath-relax: the nodes' paths are equal whatever AS they come from), and
// as-override so a node accepts the other nodes' pod CIDRs although they carry its
// own AS.
func torBGPConfig(nodes []*Node) string {
	var b strings.Builder
	b.WriteString(" bgp bestpath as-path multipath-relax\n bgp graceful-restart\n")
	for _, n := range nodes {
		fmt.Fprintf(&b, " neighbor %s remote-as %d\n neighbor %s timers connect 1\n", n.IPv4, NodeASN, n.IPv4)
	}
	for _, af := range []string{"ipv4", "ipv6"} {
		fmt.Fprintf(&b, " address-family %s unicast\n  maximum-paths 8\n", af)
		for _, n := range nodes {
			fmt.Fprintf(&b, "  neighbor %s activate\n  neighbor %s as-override\n", n.IPv4, n.IPv4)
		}
		b.WriteString(" exit-address-family\n")
	}
	return b.String()
}

// installKbgp applies the shipped manifests through the lab's overlay, waits for the
// CRDs, then applies the rack's BGP objects.
func (c *Cluster) installKbgp() {
	c.t.Helper()
	c.MustKubectl("apply", "--server-side", "-k", filepath.Join(c.cfg.Repo, "config/cluster-lab"))
	c.MustKubectl("wait", "--for=condition=Established", "--timeout=60s", "crd", "--all")
	c.MustKubectl("apply", "-f", filepath.Join(c.cfg.Repo, "config/cluster-lab/bgp"))
}

// Kubectl runs this machine's kubectl (the one built with the API server) as the
// administrator.
func (c *Cluster) Kubectl(args ...string) (string, error) {
	cmd := exec.Command(c.asset("kubectl"), append([]string{"--kubeconfig", c.Kubeconfig}, args...)...)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := cmd.Run()
	return out.String(), err
}

// MustKubectl is Kubectl failing the run on error.
func (c *Cluster) MustKubectl(args ...string) string {
	c.t.Helper()
	out, err := c.Kubectl(args...)
	if err != nil {
		c.t.Fatalf("kcluster: kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// Dir is the cluster's temporary directory (logs, configs, node disks).
func (c *Cluster) Dir() string { return c.dir }

// Lab is the cluster's network lab.
func (c *Cluster) Lab() *netlab.Lab { return c.lab }

// Env is what `make cluster-up` prints for scripts, one shell-sourceable line each.
func (c *Cluster) Env() string {
	return fmt.Sprintf("KUBECONFIG=%s\nROUTER_NETNS=%s\nROUTER_VTYSH=%q\nCLIENT_NETNS=%s\n",
		c.Kubeconfig, c.Tor.Namespace().Name, "vtysh --vty_socket "+c.Tor.VTY.Dir, c.ClientNS.Name)
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
