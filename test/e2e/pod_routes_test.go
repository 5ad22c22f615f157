package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/test/e2e/netlab"
)

// The pod-routes e2e's segment: an FRR route reflector and two nodes on one bridge.
const (
	podRoutesRR       = "10.81.0.1"
	podRoutesCluster  = "10.244.0.0/16"
	podRoutesOutside  = "172.16.99.0/24"
	podRouteProtoName = "210"
)

// TestPodRoutesThroughARouteReflector: two pod-network nodes on one L2 segment peer
// (iBGP) with an FRR route reflector that forwards nothing. Each announces its pod
// CIDR; with importPodRoutes each installs the other's into its kernel, next hop the
// other node, under kbgp's route protocol, and reports the count; the reflector's own
// routes outside the pod ranges (a prefix and a default route) are not installed.
// An agent restarted gracefully keeps its node's routes in the kernel throughout and,
// after the reflector's End-of-RIB, sweeps a kbgp route no peer sent again. A node's
// BGP configuration deleted withdraws its pod CIDR, and the other node removes the
// route.
func TestPodRoutesThroughARouteReflector(t *testing.T) {
	lab := netlab.New(t)
	br := lab.Bridge("seg")
	rrNS := lab.Namespace("rr")
	br.Attach(rrNS, "to-seg", []string{podRoutesRR + "/24"})
	names := make([]string, 2)
	addrs := []string{"10.81.0.11", "10.81.0.12"}
	cidrs := []string{"10.244.11.0/24", "10.244.12.0/24"}
	nodes := make([]*netlab.Namespace, 2)
	var cfg strings.Builder
	for i := range nodes {
		names[i] = fmt.Sprintf("e2e-podrt-%d-%s", i+1, strings.Trim(lab.Prefix(), "-"))
		nodes[i] = lab.Namespace(fmt.Sprintf("node%d", i+1))
		br.Attach(nodes[i], "to-seg", []string{addrs[i] + "/24"})
		fmt.Fprintf(&cfg, "neighbor %s remote-as 65001\nneighbor %s timers 3 9\nneighbor %s timers connect 1\n", addrs[i], addrs[i], addrs[i])
	}
	cfg.WriteString("bgp graceful-restart\naddress-family ipv4 unicast\n")
	for _, a := range addrs {
		fmt.Fprintf(&cfg, " neighbor %s route-reflector-client\n", a)
	}
	cfg.WriteString(" network " + podRoutesOutside + "\n network 0.0.0.0/0\nexit-address-family\n")
	rr := netlab.StartFRR(rrNS, netlab.FRRConfig{ASN: 65001, RouterID: podRoutesRR, ListenAddrs: []string{podRoutesRR}, RawConfig: cfg.String()})

	ensureNamespace(t)
	sel := &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"advertise": kbgpv1.LabelValue(names[0])}}
	pc := &kbgpv1.BGPPeerConfig{ObjectMeta: metav1.ObjectMeta{Name: names[0]}, Spec: kbgpv1.BGPPeerConfigSpec{
		Timers:          &kbgpv1.BGPTimers{ConnectRetryTimeSeconds: ptr.To[int32](1), HoldTimeSeconds: ptr.To[int32](9), KeepAliveTimeSeconds: ptr.To[int32](3)},
		GracefulRestart: &kbgpv1.BGPGracefulRestart{Enabled: true, RestartTimeSeconds: ptr.To[int32](120)},
		Families:        []kbgpv1.BGPFamily{{AFI: kbgpv1.AFIIPv4, SAFI: kbgpv1.SAFIUnicast, Advertisements: sel, ImportPodRoutes: true}},
	}}
	ad := &kbgpv1.BGPAdvertisement{ObjectMeta: metav1.ObjectMeta{Name: names[0], Labels: map[string]string{"advertise": names[0]}},
		Spec: kbgpv1.BGPAdvertisementSpec{Advertisements: []kbgpv1.Advertisement{{AdvertisementType: kbgpv1.AdvertisementPodCIDR}}}}
	create(t, pc, ad)
	agents := make([]*agentProcess, 2)
	for i, name := range names {
		create(t, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NodeSpec{PodCIDRs: []string{cidrs[i]}}},
			&kbgpv1.BGPNodeConfig{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: kbgpv1.BGPNodeConfigSpec{BGPInstances: []kbgpv1.BGPNodeInstance{{
				BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: 65001, RouterID: addrs[i]},
				Peers: []kbgpv1.BGPNodePeer{{BGPPeer: kbgpv1.BGPPeer{Name: "rr", PeerAddress: podRoutesRR, PeerASN: 65001,
					PeerConfigRef: &kbgpv1.PeerConfigReference{Name: pc.Name}}}},
			}}}})
		agents[i] = startPodNetworkAgent(t, lab, nodes[i], name, "--cluster-pod-cidrs", podRoutesCluster)
	}
	for _, a := range addrs {
		rr.WaitNeighborState(t, a, "Established", sessionTimeout)
	}

	waitPodRoutes(t, nodes[0], map[string]string{cidrs[1]: addrs[1]})
	waitPodRoutes(t, nodes[1], map[string]string{cidrs[0]: addrs[0]})
	for i, name := range names {
		netlab.WaitFor(t, sessionTimeout, 300*time.Millisecond, func() (bool, string) {
			st := nodeStatus(t, name)
			return st.PodNetwork != nil && st.PodNetwork.InstalledRoutes == 1, fmt.Sprintf("node %d status.podNetwork %+v", i+1, st.PodNetwork)
		})
		if out := nodes[i].MustExec("ip", "route", "show", "table", "main"); strings.Contains(out, podRoutesOutside) || strings.Contains(out, "default") {
			t.Errorf("node %d installed a route the reflector sent outside the pod ranges:\n%s", i+1, out)
		}
	}

	// Node 1's agent restarted gracefully, a stale kbgp route planted meanwhile.
	const planted = "10.244.77.0/24"
	nodes[0].MustExec("ip", "route", "add", planted, "via", addrs[1], "proto", podRouteProtoName)
	if err := agents[0].proc.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if !agents[0].proc.Wait(20 * time.Second) {
		t.Fatal("agent did not exit within 20 s of SIGTERM")
	}
	agents[0].relay.Close()
	agents[0] = startPodNetworkAgent(t, lab, nodes[0], names[0], "--cluster-pod-cidrs", podRoutesCluster)
	for deadline := time.Now().Add(sessionTimeout); ; {
		got, err := podRoutesIn(nodes[0])
		if err != nil {
			t.Fatal(err)
		}
		if got[cidrs[1]] != addrs[1] {
			t.Fatalf("node 1 lost its route to node 2's pods during the restart: %v", got)
		}
		if _, ok := got[planted]; !ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the planted stale route was not swept after the reflector's End-of-RIB: %v", got)
		}
		time.Sleep(100 * time.Millisecond)
	}

	// Node 2's BGP configuration deleted: the reflector withdraws its pod CIDR.
	if err := server.Client.Delete(t.Context(), &kbgpv1.BGPNodeConfig{ObjectMeta: metav1.ObjectMeta{Name: names[1]}}); err != nil {
		t.Fatal(err)
	}
	waitPodRoutes(t, nodes[0], map[string]string{})
}

// startPodNetworkAgent starts an agent that is its node's pod network, its CNI
// configuration and state in the test's temporary directories.
func startPodNetworkAgent(t *testing.T, lab *netlab.Lab, ns *netlab.Namespace, node string, extraArgs ...string) *agentProcess {
	t.Helper()
	args := append([]string{"--pod-network", "--cni-conf-dir", t.TempDir(), "--cni-state-dir", t.TempDir(), "--cni-ipam-dir", t.TempDir()}, extraArgs...)
	return startAgentProcess(t, lab, ns, node, t.TempDir(), true, args...)
}

// waitPodRoutes waits until kbgp's routes in ns's main table are exactly want
// (prefix → next hop).
func waitPodRoutes(t *testing.T, ns *netlab.Namespace, want map[string]string) {
	t.Helper()
	netlab.WaitFor(t, sessionTimeout, 300*time.Millisecond, func() (bool, string) {
		got, err := podRoutesIn(ns)
		if err != nil {
			return false, err.Error()
		}
		if len(got) != len(want) {
			return false, fmt.Sprintf("%s: kbgp's routes %v, want %v", ns, got, want)
		}
		for p, via := range want {
			if got[p] != via {
				return false, fmt.Sprintf("%s: kbgp's routes %v, want %v", ns, got, want)
			}
		}
		return true, ""
	})
}

// podRoutesIn reads the routes of kbgp's protocol in ns's main table.
func podRoutesIn(ns *netlab.Namespace) (map[string]string, error) {
	out, err := ns.Exec("ip", "-j", "route", "show", "table", "main", "proto", podRouteProtoName)
	if err != nil {
		return nil, err
	}
	var routes []struct {
		Dst     string `json:"dst"`
		Gateway string `json:"gateway"`
	}
	if err := json.Unmarshal([]byte(out), &routes); err != nil {
		return nil, fmt.Errorf("ip -j route: %w: %s", err, out)
	}
	got := map[string]string{}
	for _, r := range routes {
		got[r.Dst] = r.Gateway
	}
	return got, nil
}
