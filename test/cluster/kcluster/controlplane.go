package kcluster

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"kbgp.io/kbgp/test/e2e/netlab"
)

// startControlPlane runs etcd, kube-apiserver, kube-controller-manager (node IPAM on,
// so pod CIDRs are real) and kube-scheduler in the control-plane namespace, and makes
// the API server reachable on this machine's loopback for kubectl.
func (c *Cluster) startControlPlane() {
	t := c.t
	t.Helper()
	ids := []identity{
		{user: "kbgp-admin", groups: []string{"system:masters"}},
		{user: "system:kube-controller-manager"},
		{user: "system:kube-scheduler"},
		{user: "system:kube-proxy"},
	}
	for i := 1; i <= c.cfg.Nodes; i++ {
		ids = append(ids, identity{user: "system:node:" + nodeName(i), groups: []string{"system:nodes"}})
	}
	p, err := newPKI(filepath.Join(c.dir, "pki"), []net.IP{net.ParseIP(APIServerIP), net.ParseIP("10.96.0.1"), net.ParseIP("127.0.0.1")}, ids)
	if err != nil {
		t.Fatalf("kcluster: pki: %v", err)
	}
	c.pki = p
	server := "https://" + APIServerIP + ":6443"
	kubeconfigs := map[string]string{}
	for _, id := range ids {
		path, err := p.kubeconfig(strings.ReplaceAll(id.user, ":", "-"), id.user, server)
		if err != nil {
			t.Fatalf("kcluster: %v", err)
		}
		kubeconfigs[id.user] = path
	}
	c.kubeconfigs = kubeconfigs
	etcdDir := filepath.Join(c.dir, "etcd")
	c.cp.Start("etcd", "etcd", "--data-dir", etcdDir,
		"--listen-client-urls", "http://127.0.0.1:2379", "--advertise-client-urls", "http://127.0.0.1:2379",
		"--listen-peer-urls", "http://127.0.0.1:2380", "--initial-advertise-peer-urls", "http://127.0.0.1:2380",
		"--initial-cluster", "default=http://127.0.0.1:2380")
	c.cp.Start("kube-apiserver", c.asset("kube-apiserver"),
		"--etcd-servers=http://127.0.0.1:2379",
		"--bind-address=0.0.0.0", "--secure-port=6443", "--advertise-address="+APIServerIP,
		"--tls-cert-file="+p.path("apiserver.crt"), "--tls-private-key-file="+p.path("apiserver.key"),
		"--client-ca-file="+p.path("ca.crt"), "--token-auth-file="+p.path("tokens.csv"),
		"--authorization-mode=Node,RBAC", "--enable-admission-plugins=NodeRestriction",
		"--service-cluster-ip-range="+ServiceCIDR,
		"--service-account-key-file="+p.path("sa.pub"), "--service-account-signing-key-file="+p.path("sa.key"),
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--allow-privileged=true", "--kubelet-preferred-address-types=InternalIP",
		"--cert-dir="+filepath.Join(c.dir, "apiserver-certs"))
	fwd, err := forwardInto(c.cp.Path(), APIServerIP+":6443")
	if err != nil {
		t.Fatalf("kcluster: %v", err)
	}
	t.Cleanup(fwd.Close)
	admin, err := p.kubeconfig("admin", "kbgp-admin", "https://"+fwd.Addr())
	if err != nil {
		t.Fatalf("kcluster: %v", err)
	}
	c.Kubeconfig = admin
	c.waitAPIServer()
	c.cp.Start("kube-controller-manager", c.asset("kube-controller-manager"),
		"--kubeconfig="+kubeconfigs["system:kube-controller-manager"],
		"--leader-elect=false", "--secure-port=0",
		"--allocate-node-cidrs=true", "--cluster-cidr="+ClusterPodCIDRv4+","+ClusterPodCIDRv6,
		"--node-cidr-mask-size-ipv4=24", "--node-cidr-mask-size-ipv6=64",
		"--service-cluster-ip-range="+ServiceCIDR,
		"--root-ca-file="+p.path("ca.crt"), "--service-account-private-key-file="+p.path("sa.key"),
		"--use-service-account-credentials=true")
	c.cp.Start("kube-scheduler", c.asset("kube-scheduler"),
		"--kubeconfig="+kubeconfigs["system:kube-scheduler"], "--leader-elect=false", "--secure-port=0")
}

func (c *Cluster) asset(name string) string { return filepath.Join(c.cfg.Assets, name) }

// waitAPIServer waits until /readyz answers through the forwarder.
func (c *Cluster) waitAPIServer() {
	netlab.WaitFor(c.t, 90*time.Second, 500*time.Millisecond, func() (bool, string) {
		out, err := c.Kubectl("get", "--raw", "/readyz")
		return err == nil && strings.TrimSpace(out) == "ok", fmt.Sprintf("readyz: %v %s", err, out)
	})
}

// writeFile writes content to path, creating its directory.
func writeFile(path, content string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(content), 0o644)
}
