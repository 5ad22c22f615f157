package kcluster

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kbgp.io/kbgp/test/e2e/netlab"
)

// AgentSelector selects the agent DaemonSet's pods (config/agent).
const AgentSelector = "app.kubernetes.io/name=kbgp,app.kubernetes.io/component=agent"

// WaitReady waits until every node is Ready, the agent DaemonSet has every agent
// updated and available, the ToR has
// every node's session Established and the echo Service's address answers from the
// client network.
func (c *Cluster) WaitReady(timeout time.Duration) {
	c.t.Helper()
	netlab.WaitFor(c.t, timeout, time.Second, func() (bool, string) {
		if msg := c.notReady(); msg != "" {
			return false, msg
		}
		return true, ""
	})
}

// nodesReady is a netlab.Poll condition: every node registered and Ready.
func (c *Cluster) nodesReady() (bool, string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	nodes, err := c.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return false, err.Error()
	}
	if len(nodes.Items) != len(c.Nodes) {
		return false, fmt.Sprintf("%d of %d nodes registered", len(nodes.Items), len(c.Nodes))
	}
	for _, n := range nodes.Items {
		if !nodeReady(&n) {
			return false, "node " + n.Name + " not Ready"
		}
	}
	return true, ""
}

// notReady says what is not ready yet ("" when everything is).
func (c *Cluster) notReady() string {
	if ok, msg := c.nodesReady(); !ok {
		return msg
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// Available, not only Ready: a DaemonSet replaces agents that have not been Ready
	// for minReadySeconds without waiting, so a rollout started earlier would not be
	// one node at a time.
	ds, err := c.Kube.AppsV1().DaemonSets("kbgp-system").Get(ctx, "kbgp-agent", metav1.GetOptions{})
	if err != nil {
		return err.Error()
	}
	if st := ds.Status; st.ObservedGeneration != ds.Generation || int(st.UpdatedNumberScheduled) != len(c.Nodes) || int(st.NumberAvailable) != len(c.Nodes) {
		return fmt.Sprintf("agents: %d of %d updated, %d available (ready for minReadySeconds)",
			st.UpdatedNumberScheduled, len(c.Nodes), st.NumberAvailable)
	}
	for _, n := range c.Nodes {
		nb, err := c.Tor.Neighbor(n.IPv4)
		if err != nil || nb.State != "Established" {
			return fmt.Sprintf("ToR session with %s: %s %v", n.Name, nb.State, err)
		}
	}
	lb, err := c.EchoAddress()
	if err != nil {
		return err.Error()
	}
	if _, err := c.ClientGet(lb); err != nil {
		return fmt.Sprintf("echo at %s from the client: %v", lb, err)
	}
	return ""
}

func nodeReady(n *corev1.Node) bool {
	for _, cond := range n.Status.Conditions {
		if cond.Type == corev1.NodeReady {
			return cond.Status == corev1.ConditionTrue
		}
	}
	return false
}

func podReady(p *corev1.Pod) bool {
	for _, cond := range p.Status.Conditions {
		if cond.Type == corev1.PodReady {
			return cond.Status == corev1.ConditionTrue
		}
	}
	return false
}

// EchoAddress is the echo Service's LoadBalancer address.
func (c *Cluster) EchoAddress() (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	svc, err := c.Kube.CoreV1().Services("default").Get(ctx, "echo", metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	for _, ing := range svc.Status.LoadBalancer.Ingress {
		if ing.IP != "" {
			return ing.IP, nil
		}
	}
	return "", fmt.Errorf("service default/echo has no LoadBalancer address yet")
}

// ClientGet sends one HTTP request to addr (port 80) from the client network and
// returns the answer's body: "POD NODE".
func (c *Cluster) ClientGet(addr string) (string, error) {
	conn, err := DialIn(c.ClientNS.Path(), net.JoinHostPort(addr, "80"), 2*time.Second)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(3 * time.Second))
	if _, err := fmt.Fprintf(conn, "GET / HTTP/1.0\r\nHost: %s\r\n\r\n", addr); err != nil {
		return "", err
	}
	b, err := io.ReadAll(bufio.NewReader(conn))
	if err != nil {
		return "", err
	}
	resp := string(b)
	if !strings.HasPrefix(resp, "HTTP/1.0 200") && !strings.HasPrefix(resp, "HTTP/1.1 200") {
		return "", fmt.Errorf("answer %q", resp)
	}
	_, body, _ := strings.Cut(resp, "\r\n\r\n")
	return strings.TrimSpace(body), nil
}

// Table is what `make cluster` prints once the cluster is ready: nodes, agents,
// sessions at the ToR, the echo pods and the LoadBalancer address answering.
func (c *Cluster) Table() string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "NODE\tREADY\tPOD-CIDRS\tAGENT-POD\tAGENT-READY\tTOR-SESSION\tROUTES-FROM-NODE")
	agents, _ := c.Kube.CoreV1().Pods("kbgp-system").List(ctx, metav1.ListOptions{LabelSelector: AgentSelector})
	for _, n := range c.Nodes {
		node, err := c.Kube.CoreV1().Nodes().Get(ctx, n.Name, metav1.GetOptions{})
		ready, cidrs := "?", "?"
		if err == nil {
			ready = fmt.Sprint(nodeReady(node))
			cidrs = strings.Join(node.Spec.PodCIDRs, ",")
		}
		agent, agentReady := "-", "-"
		for _, p := range agents.Items {
			if p.Spec.NodeName == n.Name {
				agent, agentReady = p.Name, fmt.Sprint(podReady(&p))
			}
		}
		state, routes := "?", "?"
		if nb, err := c.Tor.Neighbor(n.IPv4); err == nil {
			state = nb.State
			total := 0
			for _, af := range nb.AddressFamilyInfo {
				total += af.AcceptedPrefixCounter
			}
			routes = fmt.Sprint(total)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", n.Name, ready, cidrs, agent, agentReady, state, routes)
	}
	w.Flush()
	b.WriteString("\n")
	w = tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "POD\tNODE\tPOD-IPS")
	pods, _ := c.Kube.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
	slices.SortFunc(pods.Items, func(a, b corev1.Pod) int { return strings.Compare(a.Namespace+a.Name, b.Namespace+b.Name) })
	for _, p := range pods.Items {
		if p.Spec.HostNetwork {
			continue
		}
		var ips []string
		for _, ip := range p.Status.PodIPs {
			ips = append(ips, ip.IP)
		}
		fmt.Fprintf(w, "%s/%s\t%s\t%s\n", p.Namespace, p.Name, p.Spec.NodeName, strings.Join(ips, ","))
	}
	w.Flush()
	lb, err := c.EchoAddress()
	if err != nil {
		fmt.Fprintf(&b, "\nLoadBalancer: %v\n", err)
		return b.String()
	}
	answer, err := c.ClientGet(lb)
	if err != nil {
		answer = "no answer: " + err.Error()
	}
	fmt.Fprintf(&b, "\nService default/echo at %s, from the client (%s): %s\n", lb, ClientV4, answer)
	return b.String()
}

// Shells says how to look around.
func (c *Cluster) Shells() string {
	return fmt.Sprintf(`Try:
  export KUBECONFIG=%s
  %s get nodes,pods -A -o wide
  ip netns exec %s vtysh --vty_socket %s -c 'show bgp ipv4 unicast'   # the ToR
  ip netns exec %s bash                                              # a shell in the client network
  ip netns exec %s curl http://<LB address>/
`, c.Kubeconfig, c.asset("kubectl"), c.Tor.Namespace().Name, c.Tor.VTY.Dir, c.ClientNS.Name, c.ClientNS.Name)
}
