package cluster

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"kbgp.io/kbgp/test/cluster/kcluster"
	"kbgp.io/kbgp/test/e2e/netlab"
)

// agentMinReady is config/agent's minReadySeconds.
const agentMinReady = 10 * time.Second

// 3. A rolling upgrade of the agent DaemonSet to the second tag while the client holds
// one TCP connection and probes the address every 20 ms: the ToR's route count from
// every node never drops, no probe fails, the connection survives, and the rollout
// waits for each new agent's readiness and minReadySeconds before the next node.
func rollingUpgrade(t *testing.T, c *kcluster.Cluster) {
	lb, err := c.EchoAddress()
	if err != nil {
		t.Fatal(err)
	}
	before := c.TorRoutesFrom()
	conn, err := c.HoldConnection(lb)
	if err != nil {
		t.Fatal(err)
	}
	watch := c.WatchRoutes()
	probes := c.StartProber(lb, 20*time.Millisecond)
	timeline, err := c.WatchPods("kbgp-system", kcluster.AgentSelector)
	if err != nil {
		t.Fatal(err)
	}
	image := kcluster.KbgpImage + ":" + kcluster.KbgpTagB
	if out, err := c.Kubectl("-n", "kbgp-system", "set", "image", "daemonset/kbgp-agent",
		"agent="+image, "install-cni="+image); err != nil {
		t.Fatalf("set image: %v\n%s", err, out)
	}
	out, err := c.Kubectl("-n", "kbgp-system", "rollout", "status", "daemonset/kbgp-agent", "--timeout=8m")
	time.Sleep(2 * time.Second)
	ok, failures, _ := probes.Stop()
	lowest := watch.Stop()
	lines, connErr := conn.Close()
	events, watchErr := timeline.Stop()
	t.Logf("agent pods during the rollout:\n%s", kcluster.FormatEvents(events))
	if err != nil {
		t.Fatalf("rollout status: %v\n%s", err, out)
	}
	if watchErr != nil {
		t.Fatal(watchErr)
	}
	t.Logf("%d probes answered during the rollout, %d lines on the held connection; routes before %v, lowest %v", ok, lines, before, lowest)
	if len(failures) > 0 {
		t.Errorf("%d of %d probes failed: %v", len(failures), ok+len(failures), first(failures))
	}
	if connErr != nil || lines == 0 {
		t.Errorf("the held connection broke after %d lines: %v", lines, connErr)
	}
	for node, n := range before {
		if n <= 0 || lowest[node] < n {
			t.Errorf("ToR routes from %s: %d before, down to %d during the rollout", node, n, lowest[node])
		}
	}
	for _, p := range agentPods(t, c) {
		if img := p.Spec.Containers[0].Image; img != image {
			t.Errorf("%s runs %s, want %s", p.Name, img, image)
		}
	}
	for _, problem := range rolloutOrder(events, image, agentMinReady) {
		t.Error(problem)
	}
}

// rolloutOrder checks one node at a time: every old agent but the first is deleted
// only once the new agent on the node before it has been ready for minReady. It
// reads the first readiness from the timeline, not the pod's Ready condition, whose
// lastTransitionTime moves with every later blip.
func rolloutOrder(events []kcluster.PodEvent, image string, minReady time.Duration) []string {
	firstReady := map[string]time.Time{} // new pod -> first ready
	newPodOn := map[string]string{}      // node -> new pod (DaemonSet pods get their node after creation)
	var oldDeletes []kcluster.PodEvent
	for _, e := range events {
		if e.Image == image && e.Node != "" {
			newPodOn[e.Node] = e.Pod
		}
		switch {
		case e.Image == image && e.What == "ready":
			if _, ok := firstReady[e.Pod]; !ok {
				firstReady[e.Pod] = e.At
			}
		case e.Image != image && e.What == "deleting":
			oldDeletes = append(oldDeletes, e)
		}
	}
	var problems []string
	for i := 1; i < len(oldDeletes); i++ {
		prev := newPodOn[oldDeletes[i-1].Node]
		ready, ok := firstReady[prev]
		switch {
		case prev == "" || !ok:
			problems = append(problems, fmt.Sprintf("the old agent on %s was deleted before the new agent on %s was ever ready",
				oldDeletes[i].Node, oldDeletes[i-1].Node))
		case oldDeletes[i].At.Sub(ready) < minReady:
			problems = append(problems, fmt.Sprintf("the old agent on %s was deleted %v after %s (on %s) became ready, want at least minReadySeconds (%v)",
				oldDeletes[i].Node, oldDeletes[i].At.Sub(ready).Round(time.Millisecond), prev, oldDeletes[i-1].Node, minReady))
		}
	}
	return problems
}

func agentPods(t *testing.T, c *kcluster.Cluster) []corev1.Pod {
	t.Helper()
	pods, err := c.Kube.CoreV1().Pods("kbgp-system").List(context.Background(), metav1.ListOptions{LabelSelector: kcluster.AgentSelector})
	if err != nil {
		t.Fatal(err)
	}
	return pods.Items
}

// 4. kubectl drain of a node: its agent marks its paths with GRACEFUL_SHUTDOWN (RFC
// 8326) as soon as the node is cordoned, so the ToR stops using it while its session
// stays up, and no probe fails while its pods are evicted.
//
// The cordon itself is probed too but only reported: a connection in flight through
// the node at the instant the ToR drops it from its ECMP group continues on another
// node, whose kube-proxy has no state for it and resets it (seen: 1 of 350 and 1 of
// 770 probes). That is stateless ECMP with kube-proxy, not the drain; the probes from
// the moment the ToR has moved off the node on must all answer.
func drain(t *testing.T, c *kcluster.Cluster) {
	lb, err := c.EchoAddress()
	if err != nil {
		t.Fatal(err)
	}
	node := c.Nodes[1]
	defer func() {
		if out, err := c.Kubectl("uncordon", node.Name); err != nil {
			t.Errorf("uncordon: %v\n%s", err, out)
		}
		waitNextHops(t, c, lb, len(c.Nodes))
	}()
	transition := c.StartProber(lb, 20*time.Millisecond)
	if out, err := c.Kubectl("cordon", node.Name); err != nil {
		transition.Stop()
		t.Fatalf("cordon: %v\n%s", err, out)
	}
	waitNextHops(t, c, lb, len(c.Nodes)-1)
	ok, failures, _ := transition.Stop()
	t.Logf("while the ToR moved off %s: %d probes answered, %d reset in flight %v", node.Name, ok, len(failures), first(failures))
	route, _ := c.Tor.Namespace().Exec("ip", "-4", "route", "show", lb+"/32")
	if strings.Contains(route, node.IPv4) {
		t.Errorf("the ToR still forwards %s to the cordoned %s:\n%s", lb, node.Name, route)
	}
	probes := c.StartProber(lb, 20*time.Millisecond)
	out, err := c.Kubectl("drain", node.Name, "--ignore-daemonsets", "--delete-emptydir-data", "--timeout=3m")
	if err != nil {
		probes.Stop()
		t.Fatalf("drain: %v\n%s", err, out)
	}
	time.Sleep(2 * time.Second)
	ok, failures, _ = probes.Stop()
	if len(failures) > 0 {
		t.Errorf("%d of %d probes failed while %s's pods were evicted: %v", len(failures), ok+len(failures), node.Name, first(failures))
	}
	if nb, err := c.Tor.Neighbor(node.IPv4); err != nil || nb.State != "Established" {
		t.Errorf("the drained node's session: %s %v, want Established (graceful shutdown keeps it up)", nb.State, err)
	}
}

// waitNextHops waits until the ToR's kernel route to addr has want next hops.
func waitNextHops(t *testing.T, c *kcluster.Cluster, addr string, want int) {
	t.Helper()
	if err := netlab.Poll(60*time.Second, 200*time.Millisecond, func() (bool, string) {
		route, err := c.Tor.Namespace().Exec("ip", "-4", "route", "show", addr+"/32")
		hops := strings.Count(route, "nexthop via")
		if hops == 0 && strings.Contains(route, " via ") {
			hops = 1
		}
		return err == nil && hops == want, fmt.Sprintf("ToR route to %s with %d next hops, want %d: %s", addr, hops, want, route)
	}); err != nil {
		t.Error(err)
	}
}

// 5. The operator's leader deleted while 100 Services are created: every Service gets
// an address and no address is ever held by two Services, at the end or in any state
// a watch sees on the way.
func operatorLeaderLost(t *testing.T, c *kcluster.Cluster) {
	ctx := context.Background()
	// The lease names the host, not the pod (the operator runs on the host network):
	// the leader is the replica that logged taking the lease.
	leader := operatorLeader(t, c)
	const ns, count = "burst", 100
	routesBefore := c.TorRoutesFrom()
	if _, err := c.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The cluster as it was for the next scenario: the Services gone and their
	// addresses withdrawn at the ToR.
	defer func() {
		if err := c.Kube.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil {
			t.Error(err)
		}
		if err := netlab.Poll(3*time.Minute, time.Second, func() (bool, string) {
			got := c.TorRoutesFrom()
			return maps.Equal(got, routesBefore), fmt.Sprintf("ToR routes per node %v, want %v again", got, routesBefore)
		}); err != nil {
			t.Error(err)
		}
	}()
	addresses, err := c.WatchAddresses(ns)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, count)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < count; i += 4 {
				svc := &corev1.Service{
					ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("burst-%03d", i), Namespace: ns},
					Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer,
						Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(8080)}}},
				}
				if _, err := c.Kube.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
					errs <- err
				}
			}
		}()
	}
	time.Sleep(500 * time.Millisecond)
	if err := c.Kube.CoreV1().Pods("kbgp-system").Delete(ctx, leader, metav1.DeleteOptions{}); err != nil {
		t.Errorf("deleting the leader %s: %v", leader, err)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	var owners map[string][]string
	if err := netlab.Poll(3*time.Minute, time.Second, func() (bool, string) {
		svcs, err := c.Kube.CoreV1().Services(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		owners = map[string][]string{}
		missing := 0
		for _, s := range svcs.Items {
			if len(s.Status.LoadBalancer.Ingress) == 0 {
				missing++
			}
			for _, ing := range s.Status.LoadBalancer.Ingress {
				owners[ing.IP] = append(owners[ing.IP], s.Name)
			}
		}
		return missing == 0 && len(svcs.Items) == count, fmt.Sprintf("%d of %d Services without an address", missing, len(svcs.Items))
	}); err != nil {
		t.Error(err)
	}
	for ip, names := range owners {
		if len(names) > 1 {
			t.Errorf("%s given to %v", ip, names)
		}
	}
	doubles, err := addresses.Stop()
	if err != nil {
		t.Error(err)
	}
	if len(doubles) > 0 {
		t.Errorf("%d times an address was held by two Services during the burst, first: %s", len(doubles), doubles[0])
	}
	t.Logf("leader %s deleted during the burst; %d addresses for %d Services", leader, len(owners), count)
}

// 6. A node "reboot": its kubelet, runtime, agent and pods killed at once and the
// routes it had installed lost; once it is back its routes return to the ToR, the
// other nodes' pod routes are installed again, and nothing of the other nodes moves.
func nodeReboot(t *testing.T, c *kcluster.Cluster) {
	ctx := context.Background()
	n := c.Nodes[len(c.Nodes)-1]
	before := c.TorRoutesFrom()
	others := slices.DeleteFunc(slices.Clone(c.Nodes), func(o *kcluster.Node) bool { return o == n })
	sessions := torSessions(t, c, others)
	var otherCIDRs []string
	for _, o := range others {
		node, err := c.Kube.CoreV1().Nodes().Get(ctx, o.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		otherCIDRs = append(otherCIDRs, node.Spec.PodCIDRs...)
	}
	for _, cidr := range otherCIDRs {
		if out := routeTo(n, cidr); !strings.Contains(out, "via") {
			t.Fatalf("%s has no route to %s before the reboot: %q", n.Name, cidr, out)
		}
	}
	watch := c.WatchRoutes()
	if err := n.PowerOff(); err != nil {
		t.Fatal(err)
	}
	// What a reboot loses of the kernel: the routes the agent had installed.
	for _, cidr := range otherCIDRs {
		if out, err := n.NS.Exec("ip", ipFamily(cidr), "route", "del", cidr); err != nil {
			t.Fatalf("ip route del %s: %v: %s", cidr, err, out)
		}
	}
	if err := n.Boot(); err != nil {
		t.Fatal(err)
	}
	c.WaitReady(4 * time.Minute)
	if err := netlab.Poll(2*time.Minute, time.Second, func() (bool, string) {
		for _, cidr := range otherCIDRs {
			if out := routeTo(n, cidr); !strings.Contains(out, "via") {
				return false, fmt.Sprintf("%s: no route to %s yet", n.Name, cidr)
			}
		}
		got := c.TorRoutesFrom()[n.Name]
		return got == before[n.Name], fmt.Sprintf("ToR routes from %s: %d, want %d", n.Name, got, before[n.Name])
	}); err != nil {
		t.Error(err)
	}
	lowest := watch.Stop()
	after := torSessions(t, c, others)
	for _, o := range others {
		if after[o.Name] != sessions[o.Name] {
			t.Errorf("%s's session moved while %s rebooted: %s (was %s)", o.Name, n.Name, after[o.Name], sessions[o.Name])
		}
		if lowest[o.Name] < before[o.Name] {
			t.Errorf("ToR routes from %s dropped to %d (was %d) while %s rebooted", o.Name, lowest[o.Name], before[o.Name], n.Name)
		}
	}
}

// operatorLeader is the operator pod that holds the leader lease.
func operatorLeader(t *testing.T, c *kcluster.Cluster) string {
	t.Helper()
	var leader string
	if err := netlab.Poll(time.Minute, time.Second, func() (bool, string) {
		pods, err := c.Kube.CoreV1().Pods("kbgp-system").List(context.Background(),
			metav1.ListOptions{LabelSelector: "app.kubernetes.io/component=operator"})
		if err != nil {
			return false, err.Error()
		}
		for _, p := range pods.Items {
			out, err := c.Kubectl("-n", "kbgp-system", "logs", p.Name)
			if err == nil && strings.Contains(out, "successfully acquired lease") {
				leader = p.Name
				return true, ""
			}
		}
		return false, "no operator pod logged taking the lease"
	}); err != nil {
		t.Fatal(err)
	}
	return leader
}

// routeTo is the node's kernel route to cidr ("" when it has none).
func routeTo(n *kcluster.Node, cidr string) string {
	out, _ := n.NS.Exec("ip", ipFamily(cidr), "route", "show", cidr)
	return out
}

// ipFamily is ip(8)'s family flag for cidr.
func ipFamily(cidr string) string {
	if strings.Contains(cidr, ":") {
		return "-6"
	}
	return "-4"
}

// torSessions describes each node's session at the ToR: its state and how many times
// it was established, which changes with every reset.
func torSessions(t *testing.T, c *kcluster.Cluster, nodes []*kcluster.Node) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, o := range nodes {
		nb, err := c.Tor.Neighbor(o.IPv4)
		if err != nil {
			t.Fatal(err)
		}
		out[o.Name] = fmt.Sprintf("%s, established %d times", nb.State, nb.ConnectionsEstablished)
	}
	return out
}

func first(s []string) []string {
	if len(s) > 5 {
		return s[:5]
	}
	return s
}

func restConfig(t *testing.T, c *kcluster.Cluster) *rest.Config {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// unstructuredStrings reads a string list at path of an unstructured object.
func unstructuredStrings(obj map[string]any, path ...string) ([]string, bool, error) {
	cur := any(obj)
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false, nil
		}
		cur = m[p]
	}
	list, ok := cur.([]any)
	if !ok {
		return nil, false, nil
	}
	var out []string
	for _, v := range list {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out, true, nil
}
