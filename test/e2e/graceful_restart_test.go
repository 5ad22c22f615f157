package e2e

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
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

// grRoutes is how many routes the agent sends FRR: enough that a flush and refill is
// seen by sampling every 0.2 s.
const grRoutes = 20000

// TestGracefulRestartKeepsEveryRoute: with graceful restart on both sides, an agent
// stopped with SIGTERM and started again never makes FRR's table shrink — the new agent
// says it kept its forwarding state (F bit), so FRR keeps the stale routes until the
// new End-of-RIB — and the negative control, the same restart without the marker the
// graceful stop left, shows the loss.
func TestGracefulRestartKeepsEveryRoute(t *testing.T) {
	lab := netlab.New(t)
	router, node, nodeName := grTopology(t, lab, "e2e-gr-", grRoutes, 120)
	agent := startAgent(t, lab, node, nodeName)
	waitReceived(t, router, grRoutes)

	t.Run("restart with the marker: the table never shrinks, F bit set", func(t *testing.T) {
		agent = restartAgent(t, lab, agent, nodeName, false)
		least := sampleUntilSettled(t, router, grRoutes)
		if least < grRoutes {
			t.Errorf("FRR's table fell to %d of %d routes during the restart", least, grRoutes)
		}
		n, err := router.Neighbor("10.87.0.1")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(n.Raw), `"fBit":true`) {
			t.Errorf("FRR did not see the forwarding-state bit: %s", grInfo(n.Raw))
		}
		t.Logf("least %d routes; FRR's graceful-restart view: %s", least, grInfo(n.Raw))
	})
	t.Run("negative control: the same restart without the marker and checkpoint loses the routes", func(t *testing.T) {
		agent = restartAgent(t, lab, agent, nodeName, true)
		least := sampleUntilSettled(t, router, grRoutes)
		if least >= grRoutes {
			t.Errorf("without the marker FRR's table never shrank (least %d): the control cannot tell", least)
		}
		t.Logf("without the marker FRR's table fell to %d routes", least)
	})
}

// grTopology is a node namespace linked to FRR (graceful restart on, restart time
// restartTime in seconds on both sides) and the API objects that make the node's agent
// send FRR routes prefixes, 1,000 Services of external IPs at a time (routes must be a
// multiple of 1,000).
func grTopology(t *testing.T, lab *netlab.Lab, namePrefix string, routes int, restartTime int32) (*netlab.FRR, *netlab.Namespace, string) {
	t.Helper()
	node := lab.Namespace("node")
	nodeName := namePrefix + strings.Trim(lab.Prefix(), "-")
	routerNS := lab.Namespace("router")
	lab.Link(node, "to-router", []string{"10.87.0.1/30"}, routerNS, "to-node", []string{"10.87.0.2/30"})
	router := netlab.StartFRR(routerNS, netlab.FRRConfig{ASN: 65087, RouterID: "10.87.0.2", ListenAddrs: []string{"10.87.0.2"}, RawConfig: fmt.Sprintf(`
bgp graceful-restart
bgp graceful-restart restart-time %d
neighbor 10.87.0.1 remote-as 65001
neighbor 10.87.0.1 timers connect 1
neighbor 10.87.0.1 graceful-restart
`, restartTime)})
	ensureNamespace(t)
	sel := &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"advertise": kbgpv1.LabelValue(nodeName)}}
	create(t, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: nodeName}},
		&kbgpv1.BGPPeerConfig{ObjectMeta: metav1.ObjectMeta{Name: nodeName}, Spec: kbgpv1.BGPPeerConfigSpec{
			Timers:          &kbgpv1.BGPTimers{ConnectRetryTimeSeconds: ptr.To[int32](1), HoldTimeSeconds: ptr.To[int32](9), KeepAliveTimeSeconds: ptr.To[int32](3)},
			GracefulRestart: &kbgpv1.BGPGracefulRestart{Enabled: true, RestartTimeSeconds: ptr.To(restartTime)},
			Families:        []kbgpv1.BGPFamily{{AFI: kbgpv1.AFIIPv4, SAFI: kbgpv1.SAFIUnicast, Advertisements: sel}},
		}},
		&kbgpv1.BGPAdvertisement{ObjectMeta: metav1.ObjectMeta{Name: nodeName, Labels: map[string]string{"advertise": nodeName}},
			Spec: kbgpv1.BGPAdvertisementSpec{Advertisements: []kbgpv1.Advertisement{{AdvertisementType: kbgpv1.AdvertisementService,
				Selector: &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"gr-test": kbgpv1.LabelValue(nodeName)}},
				Service:  &kbgpv1.ServiceAdvertisement{Addresses: []kbgpv1.ServiceAddressType{kbgpv1.ServiceExternalIP}, ExternalIPPrefixes: []kbgpv1.CIDR{"198.18.0.0/15"}}}}}},
		&kbgpv1.BGPNodeConfig{ObjectMeta: metav1.ObjectMeta{Name: nodeName}, Spec: kbgpv1.BGPNodeConfigSpec{BGPInstances: []kbgpv1.BGPNodeInstance{{
			BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: 65001, RouterID: routerID},
			Peers: []kbgpv1.BGPNodePeer{{BGPPeer: kbgpv1.BGPPeer{Name: "router", PeerAddress: "10.87.0.2", PeerASN: 65087,
				PeerConfigRef: &kbgpv1.PeerConfigReference{Name: nodeName}}}},
		}}}})
	next := netip.MustParseAddr("198.18.0.1")
	for i := range routes / 1000 {
		ips := make([]string, 0, 1000)
		for range 1000 {
			ips = append(ips, next.String())
			next = next.Next()
		}
		createGRService(t, nodeName, fmt.Sprintf("%s-%02d", nodeName, i), ips...)
	}
	return router, node, nodeName
}

// createGRService creates a Service of grTopology's node whose external IPs the agent
// sends FRR.
func createGRService(t *testing.T, nodeName, name string, ips ...string) {
	t.Helper()
	create(t, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, Labels: map[string]string{"gr-test": nodeName}},
		Spec: corev1.ServiceSpec{ExternalIPs: ips, Ports: []corev1.ServicePort{{Port: 80}}}})
}

// restartAgent stops the agent with SIGTERM (a graceful stop), optionally removes the
// marker it left (and the checkpoint), and starts a new agent with the same state directory.
func restartAgent(t *testing.T, lab *netlab.Lab, a *agentProcess, node string, dropMarker bool) *agentProcess {
	t.Helper()
	if err := a.proc.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if !a.proc.Wait(20 * time.Second) {
		t.Fatal("agent did not exit within 20 s of SIGTERM")
	}
	marker := filepath.Join(a.stateDir, "graceful-restart.json")
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("no marker after a graceful stop: %v", err)
	}
	if dropMarker {
		// The checkpoint of this boot would claim forwarding state too (as after a
		// crash): the control removes every record of the previous run.
		for _, f := range []string{marker, filepath.Join(a.stateDir, "checkpoint.json")} {
			if err := os.Remove(f); err != nil {
				t.Fatal(err)
			}
		}
	}
	a.relay.Close()
	return startAgentWithState(t, lab, a.ns, node, a.stateDir)
}

// waitReceived waits until FRR holds n routes from the agent.
func waitReceived(t *testing.T, f *netlab.FRR, n int) {
	t.Helper()
	netlab.WaitFor(t, 2*sessionTimeout, 500*time.Millisecond, func() (bool, string) {
		got, _, err := received(f)
		return err == nil && got == n, fmt.Sprintf("FRR holds %d routes (%v), want %d", got, err, n)
	})
}

// sampleUntilSettled samples FRR's route count as fast as vtysh answers (a flush and
// refill takes about half a second) until the session is Established again with the
// whole table (want routes) and 10 s more have passed, and returns the least count seen.
func sampleUntilSettled(t *testing.T, f *netlab.FRR, want int) int {
	t.Helper()
	least, samples := want, 0
	var settled time.Time
	for deadline := time.Now().Add(2 * sessionTimeout); time.Now().Before(deadline); {
		n, established, err := received(f)
		if err != nil {
			continue
		}
		samples++
		least = min(least, n)
		if settled.IsZero() && established && n == want {
			settled = time.Now()
		}
		if !settled.IsZero() && time.Since(settled) > 10*time.Second {
			t.Logf("%d samples", samples)
			return least
		}
	}
	t.Fatalf("FRR never settled with the full table again (least %d)", least)
	return least
}

// received is the number of IPv4 prefixes FRR holds from the agent, stale ones
// included, and whether the session is Established.
func received(f *netlab.FRR) (int, bool, error) {
	var sum struct {
		Peers map[string]struct {
			PfxRcd int    `json:"pfxRcd"`
			State  string `json:"state"`
		} `json:"peers"`
	}
	if err := f.JSON("show bgp ipv4 unicast summary json", &sum); err != nil {
		return 0, false, err
	}
	p := sum.Peers["10.87.0.1"]
	return p.PfxRcd, p.State == "Established", nil
}

// grInfo is FRR's gracefulRestartInfo of a neighbor, for messages.
func grInfo(raw json.RawMessage) string {
	var n struct {
		Info json.RawMessage `json:"gracefulRestartInfo"`
	}
	_ = json.Unmarshal(raw, &n)
	return string(n.Info)
}
