// Package cluster runs kbgp the way its users do: on a real cluster (kubelets,
// containerd, kube-proxy, images built here, the shipped manifests through
// config/cluster-lab) behind an FRR ToR, and checks the six scenarios of
// docs/install.md's "A real cluster on one machine".
package cluster

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"kbgp.io/kbgp/test/cluster/kcluster"
	"kbgp.io/kbgp/test/e2e/netlab"
)

func repoRoot(t *testing.T) string {
	_, file, _, _ := runtime.Caller(0)
	root, err := filepath.Abs(filepath.Join(filepath.Dir(file), "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestCluster brings one cluster up and runs the scenarios on it in order; each
// leaves the cluster as it found it.
func TestCluster(t *testing.T) {
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		t.Fatal("KUBEBUILDER_ASSETS must name the Kubernetes binaries (hack/test-deps.sh prints it)")
	}
	c := kcluster.Up(t, kcluster.Config{Repo: repoRoot(t), Assets: assets, Logf: t.Logf})
	t.Log("\n" + c.Table())
	t.Run("PodsTalkAcrossNodes", func(t *testing.T) { podsTalkAcrossNodes(t, c) })
	t.Run("LoadBalancerThroughECMP", func(t *testing.T) { loadBalancerThroughECMP(t, c) })
	t.Run("RollingUpgradeLosesNothing", func(t *testing.T) { rollingUpgrade(t, c) })
	t.Run("DrainShiftsTrafficFirst", func(t *testing.T) { drain(t, c) })
	t.Run("OperatorLeaderLostDuringBurst", func(t *testing.T) { operatorLeaderLost(t, c) })
	t.Run("NodeReboot", func(t *testing.T) { nodeReboot(t, c) })
	t.Run("RoutesThroughPodProxy", func(t *testing.T) { routesThroughPodProxy(t, c) })
}

func echoPods(t *testing.T, c *kcluster.Cluster) []corev1.Pod {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	pods, err := c.Kube.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=echo"})
	if err != nil {
		t.Fatal(err)
	}
	var running []corev1.Pod
	for _, p := range pods.Items {
		if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil && len(p.Status.PodIPs) == 2 {
			running = append(running, p)
		}
	}
	return running
}

// talk sends one line from the pod's network namespace to addr and returns the answer.
func talk(nsPath, addr string) (string, error) {
	conn, err := kcluster.DialIn(nsPath, addr, 3*time.Second)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(3 * time.Second))
	if _, err := fmt.Fprintln(conn, "hello"); err != nil {
		return "", err
	}
	buf := make([]byte, 256)
	n, err := conn.Read(buf)
	return strings.TrimSpace(string(buf[:n])), err
}

// 1. Pods on two nodes talk TCP over IPv4 and IPv6 through the ToR's routes; the
// runtime set their sandboxes up through kbgp-cni, whose recorded gateways reach
// status.podNetwork.
func podsTalkAcrossNodes(t *testing.T, c *kcluster.Cluster) {
	pods := echoPods(t, c)
	var a, b *corev1.Pod
	for i := range pods {
		for j := range pods {
			if pods[i].Spec.NodeName != pods[j].Spec.NodeName {
				a, b = &pods[i], &pods[j]
			}
		}
	}
	if a == nil {
		t.Fatalf("no two echo pods on different nodes: %d pods", len(pods))
	}
	from, err := c.PodNetNS(a.Name)
	if err != nil {
		t.Fatal(err)
	}
	for _, ip := range b.Status.PodIPs {
		got, err := talk(from, net.JoinHostPort(ip.IP, "9000"))
		if err != nil || !strings.HasPrefix(got, b.Name+" "+b.Spec.NodeName) {
			t.Errorf("%s (%s) → %s (%s) at %s: %q, %v", a.Name, a.Spec.NodeName, b.Name, b.Spec.NodeName, ip.IP, got, err)
		} else {
			t.Logf("%s on %s → %s on %s at %s: %q", a.Name, a.Spec.NodeName, b.Name, b.Spec.NodeName, ip.IP, got)
		}
	}
	// Negative control: an address of the pod range that no node announces is not
	// reachable, so the answers above came over the announced routes.
	if got, err := talk(from, "10.244.250.9:9000"); err == nil {
		t.Errorf("an unannounced pod address answered: %q", got)
	}
	dyn := dynamic.NewForConfigOrDie(restConfig(t, c))
	gvr := schema.GroupVersionResource{Group: "kbgp.io", Version: "v1alpha1", Resource: "bgpnodeconfigs"}
	// The agent looks for gateways it has not seen yet every 15 s.
	for _, p := range []*corev1.Pod{a, b} {
		if err := netlab.Poll(time.Minute, time.Second, func() (bool, string) {
			obj, err := dyn.Resource(gvr).Get(context.Background(), p.Spec.NodeName, metav1.GetOptions{})
			if err != nil {
				return false, err.Error()
			}
			gws, _, _ := unstructuredStrings(obj.Object, "status", "podNetwork", "gateways")
			return len(gws) == 2, fmt.Sprintf("%s: status.podNetwork.gateways = %v, want the IPv4 and IPv6 gateways kbgp-cni recorded", p.Spec.NodeName, gws)
		}); err != nil {
			t.Error(err)
		}
	}
}

// 2. The client reaches the echo Service's address through the ToR's ECMP route and
// kube-proxy, and answers come from pods on more than one node.
func loadBalancerThroughECMP(t *testing.T, c *kcluster.Cluster) {
	lb, err := c.EchoAddress()
	if err != nil {
		t.Fatal(err)
	}
	route, err := c.Tor.Namespace().Exec("ip", "-4", "route", "show", lb+"/32")
	if err != nil {
		t.Fatal(err)
	}
	if hops := strings.Count(route, "nexthop via"); hops != len(c.Nodes) {
		t.Errorf("ToR route to %s: %d next hops, want %d (one per node):\n%s", lb, hops, len(c.Nodes), route)
	}
	p := c.StartProber(lb, 20*time.Millisecond)
	time.Sleep(3 * time.Second)
	ok, failures, byNode := p.Stop()
	if len(failures) > 0 || ok == 0 {
		t.Errorf("%d answers, %d failures: %v", ok, len(failures), first(failures))
	}
	if len(byNode) < 2 {
		t.Errorf("answers came from pods on %v, want more than one node", byNode)
	}
	t.Logf("%d answers from pods on %v", ok, byNode)
}
