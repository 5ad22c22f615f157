package e2e

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/test/e2e/netlab"
)

// The weighted-ECMP e2e's segment: FRR and three nodes on one bridge.
const (
	weightedFRR   = "10.84.0.1"
	weightedLabel = "e2e-weighted"
	weightedNS    = "e2e-weighted"
)

// TestWeightedECMPFollowsLocalEndpoints: three nodes announce one externalTrafficPolicy
// Local load-balancer address with weightedECMP to FRR (multipath, `bgp bestpath
// bandwidth`, zebra). With 1, 2 and 3 ready endpoints on the nodes FRR installs three
// next hops weighted 1:2:3 (zebra's weights are each path's share of the bandwidth in
// percent, rounded down); TCP connections from FRR's namespace are split by those
// weights. A node scaled to 0 endpoints leaves; given endpoints again, the weights
// follow. No session resets on the way.
func TestWeightedECMPFollowsLocalEndpoints(t *testing.T) {
	lab := netlab.New(t)
	seg := startThreeNodes(t, lab, "e2e-weighted", "10.84.0", "bgp bestpath bandwidth skip-missing\n")
	frrNS, ctl, f, nodes, addrs, nsOf := seg.frrNS, seg.ctl, seg.frr, seg.nodes, seg.addrs, seg.ns
	// Every TCP connection hashed on its ports too, not only on the addresses (the
	// default), so that new connections from one client spread over the next hops.
	frrNS.MustExec("sysctl", "-w", "net.ipv4.fib_multipath_hash_policy=1")
	createSegmentObjects(t, segment{label: weightedLabel, namespace: weightedNS, frr: weightedFRR, nodeNet: "10.84.0",
		pool: kbgpv1.IPBlock{Start: "10.85.0.10", Stop: "10.85.0.20"}, attrs: &kbgpv1.BGPAttributes{WeightedECMP: true}}, nodes)
	startOperatorProcess(t, lab, ctl)
	for i := range nodes {
		startAgent(t, lab, nsOf[i], nodes[i])
	}
	for _, a := range addrs {
		f.WaitNeighborState(t, a, "Established", sessionTimeout)
	}
	before := map[string]int{}
	for _, a := range addrs {
		before[a] = dropped(t, f, a)
	}

	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: weightedNS, Name: "web"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, ExternalTrafficPolicy: corev1.ServiceExternalTrafficPolicyLocal,
			Ports: []corev1.ServicePort{{Port: 80}}}}
	create(t, svc)
	slice := &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Namespace: weightedNS, Name: "web-1", Labels: map[string]string{discoveryv1.LabelServiceName: "web"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   weightedEndpoints(nodes, []int{1, 2, 3}),
	}
	create(t, slice)
	ip := waitIngress(t, svc, 1)[0].String()
	prefix := ip + "/32"
	waitWeights(t, f, prefix, addrs, []int{1, 2, 3})

	// Traffic: each node answers with its name; the share of new connections each gets
	// from FRR's namespace should follow the weights.
	for i, ns := range nsOf {
		ns.AddAddr("lo", prefix)
		ns.Start(fmt.Sprintf("echo-%d", i+1), "socat", "TCP-LISTEN:8080,bind="+ip+",fork,reuseaddr", fmt.Sprintf("SYSTEM:echo node-%d", i+1))
		ns.WaitTCPListening(8080, 10*time.Second)
	}
	split := connectionSplit(t, frrNS, ip, 300)
	t.Logf("300 new TCP connections from FRR's namespace: %v (weights 1:2:3)", split)
	for i, n := range []int{1, 2, 3} {
		share, want := float64(split[fmt.Sprintf("node-%d", i+1)])/300, float64(n)/6
		if math.Abs(share-want) > 0.10 {
			t.Errorf("node-%d got %.1f %% of the connections, want %.1f %% ± 10 points", i+1, 100*share, 100*want)
		}
	}

	// Node 1 scaled to 0: its next hop leaves, the others weigh 2:3.
	update(t, slice, func(s *discoveryv1.EndpointSlice) { s.Endpoints = weightedEndpoints(nodes, []int{0, 2, 3}) })
	waitWeights(t, f, prefix, addrs[1:], []int{2, 3})
	// Endpoints added on node 1 (and one moved away from node 3): 4:2:2.
	update(t, slice, func(s *discoveryv1.EndpointSlice) { s.Endpoints = weightedEndpoints(nodes, []int{4, 2, 2}) })
	waitWeights(t, f, prefix, addrs, []int{4, 2, 2})
	// Node 3 again right away, sooner than the pacing interval after its last change:
	// the agent holds the change back and sends it when the interval has passed.
	changed := time.Now()
	update(t, slice, func(s *discoveryv1.EndpointSlice) { s.Endpoints = weightedEndpoints(nodes, []int{4, 2, 1}) })
	waitWeights(t, f, prefix, addrs, []int{4, 2, 1})
	t.Logf("the second change of node 3 within the interval reached FRR after %s", time.Since(changed).Round(100*time.Millisecond))

	for _, a := range addrs {
		if got := dropped(t, f, a); got != before[a] {
			t.Errorf("session of %s dropped (%d -> %d) while the weights changed", a, before[a], got)
		}
	}
}

// weightedEndpoints are counts[i] ready endpoints on nodes[i], each with its own address.
func weightedEndpoints(nodes []string, counts []int) []discoveryv1.Endpoint {
	var out []discoveryv1.Endpoint
	for i, n := range counts {
		for j := range n {
			out = append(out, discoveryv1.Endpoint{Addresses: []string{fmt.Sprintf("10.244.%d.%d", i+1, j+1)}, NodeName: ptr.To(nodes[i]),
				Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}})
		}
	}
	return out
}

// zebraRoute is the part of `show ip route PREFIX json` the test reads.
type zebraRoute struct {
	Protocol  string `json:"protocol"`
	Installed bool   `json:"installed"`
	Nexthops  []struct {
		IP     string `json:"ip"`
		Active bool   `json:"active"`
		FIB    bool   `json:"fib"`
		Weight int    `json:"weight"`
	} `json:"nexthops"`
}

// waitWeights waits until zebra has prefix installed from BGP through exactly the
// next hops addrs, weighted as FRR weighs link bandwidths: each path's share of their
// sum in percent, rounded down (FRR 8.4 bgp_zebra_use_nhop_weighted).
func waitWeights(t *testing.T, f *netlab.FRR, prefix string, addrs []string, counts []int) {
	t.Helper()
	total := 0
	for _, n := range counts {
		total += n
	}
	want := map[string]int{}
	for i, a := range addrs {
		want[a] = counts[i] * 100 / total
	}
	netlab.WaitFor(t, sessionTimeout, 300*time.Millisecond, func() (bool, string) {
		out, err := f.Command("show ip route " + prefix + " json")
		if err != nil {
			return false, fmt.Sprintf("vtysh: %v: %s", err, out)
		}
		var routes map[string][]zebraRoute
		if err := json.Unmarshal([]byte(out), &routes); err != nil {
			return false, fmt.Sprintf("decode %q: %v", out, err)
		}
		got := map[string]int{}
		for _, r := range routes[prefix] {
			if r.Protocol != "bgp" || !r.Installed {
				continue
			}
			for _, nh := range r.Nexthops {
				if nh.Active && nh.FIB {
					got[nh.IP] = nh.Weight
				}
			}
		}
		if fmt.Sprint(got) == fmt.Sprint(want) {
			return true, ""
		}
		return false, fmt.Sprintf("zebra's next hops of %s with their weights: %v, want %v; BGP paths: %s", prefix, got, want, linkBandwidths(f, prefix))
	})
	t.Logf("%s: next hops weighted %v for endpoint counts %v", prefix, want, counts)
}

// connectionSplit opens n new TCP connections from ns to ip:8080 and counts the
// answers by node.
func connectionSplit(t *testing.T, ns *netlab.Namespace, ip string, n int) map[string]int {
	t.Helper()
	out := map[string]int{}
	for range n {
		answer, err := ns.ExecTimeout(5*time.Second, "socat", "-T2", "-", "TCP:"+ip+":8080,connect-timeout=2")
		if err != nil {
			t.Fatalf("TCP to %s:8080: %v %q", ip, err, answer)
		}
		out[strings.TrimSpace(answer)]++
	}
	return out
}

// linkBandwidths lists, for a failure message, the link bandwidth FRR shows for each
// path of prefix.
func linkBandwidths(f *netlab.FRR, prefix string) string {
	out, err := f.Command("show bgp ipv4 unicast " + prefix + " json")
	if err != nil {
		return fmt.Sprintf("vtysh: %v", err)
	}
	var r struct {
		Paths []struct {
			Peer struct {
				PeerID string `json:"peerId"`
			} `json:"peer"`
			ExtendedCommunity struct {
				String string `json:"string"`
			} `json:"extendedCommunity"`
			Multipath bool `json:"multipath"`
		} `json:"paths"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		return fmt.Sprintf("decode: %v", err)
	}
	var b strings.Builder
	for _, p := range r.Paths {
		fmt.Fprintf(&b, "[%s %q multipath=%v] ", p.Peer.PeerID, p.ExtendedCommunity.String, p.Multipath)
	}
	return b.String()
}
