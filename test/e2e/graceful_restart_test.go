package e2e

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/test/e2e/netlab"
)

// grRoutes is how many routes the agent sends FRR and BIRD: enough that the negative
// control's flush and refill lasts several samples. With 20,000, once the agent sent
// them faster, one CI run reading FRR every 40–50 ms (a vtysh call takes 30–40) missed
// the dip at FRR altogether.
const grRoutes = 60000

// TestGracefulRestartKeepsEveryRoute: with graceful restart on both sides, an agent
// stopped with SIGTERM and started again never makes FRR's or BIRD's table shrink — the
// new agent says it kept its forwarding state (F bit), so both keep the stale routes
// until the new End-of-RIB — and the negative control, the same restart without the
// marker the graceful stop left, shows that neither router sees the F bit then and
// that BIRD's table empties (see the control for why FRR's shrinking is not required).
func TestGracefulRestartKeepsEveryRoute(t *testing.T) {
	lab := netlab.New(t)
	gr := grTopology(t, lab, "e2e-gr-", grRoutes, 120)
	agent := startAgent(t, lab, gr.node, gr.nodeName)
	waitReceived(t, grRoutes, gr.tables()...)

	t.Run("restart with the marker: the tables never shrink, F bit set", func(t *testing.T) {
		agent = restartAgent(t, lab, agent, gr.nodeName, false)
		for table, least := range sampleUntilSettled(t, grRoutes, gr.tables()...) {
			if least < grRoutes {
				t.Errorf("%s's table fell to %d of %d routes during the restart", table, least, grRoutes)
			}
			t.Logf("%s: least %d routes", table, least)
		}
		n, err := gr.frr.Neighbor(grNodeAddr)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(n.Raw), `"fBit":true`) {
			t.Errorf("FRR did not see the forwarding-state bit: %s", grInfo(n.Raw))
		}
		t.Logf("FRR's graceful-restart view: %s", grInfo(n.Raw))
		p, err := gr.bird.Protocol(grBIRDProtocol)
		if err != nil {
			t.Fatal(err)
		}
		if !birdSawForwardingState(p.Raw) {
			t.Errorf("BIRD did not see the forwarding-state bit:\n%s", p.Raw)
		}
	})
	t.Run("negative control: the same restart without the marker and checkpoint loses the routes", func(t *testing.T) {
		agent = restartAgent(t, lab, agent, gr.nodeName, true)
		// BIRD's table must show the loss: it is the proof that the samplers see one.
		// FRR's need not. Without the F bit FRR flushes the stale routes as the session
		// comes up and takes the new agent's table in the UPDATEs right after, and its
		// CLI, which the sampler reads, need not answer between the two. Since GoBGP
		// patch 0034 made the agent's loading faster, FRR read 60,000 in all 290
		// samples of a CI run and in 4 of 6 local runs, where two runs of the build
		// before read 7,168 and 31,744. That FRR was not told to keep the routes is
		// checked below (no F bit).
		for table, least := range sampleUntilSettled(t, grRoutes, gr.tables()...) {
			if _, bird := table.(birdTable); bird && least >= grRoutes {
				t.Errorf("without the marker %s's table never shrank (least %d): the control cannot tell", table, least)
			}
			t.Logf("without the marker %s's table fell to %d routes", table, least)
		}
		// The F-bit checks above can fail: without the marker neither router sees it.
		if n, err := gr.frr.Neighbor(grNodeAddr); err != nil || strings.Contains(string(n.Raw), `"fBit":true`) {
			t.Errorf("without the marker FRR still saw the forwarding-state bit (%v): %s", err, grInfo(n.Raw))
		}
		if p, err := gr.bird.Protocol(grBIRDProtocol); err != nil || birdSawForwardingState(p.Raw) {
			t.Errorf("without the marker BIRD still saw the forwarding-state bit (%v):\n%s", err, p.Raw)
		}
	})
}

// The graceful-restart topology's addresses: the node has a link to FRR and one to BIRD.
const (
	grNodeAddr     = "10.87.0.1"
	grFRRAddr      = "10.87.0.2"
	grNodeBIRDAddr = "10.86.0.1"
	grBIRDAddr     = "10.86.0.2"
	grBIRDProtocol = "agent"
)

// grLab is grTopology's result: the node and its two graceful-restart routers.
type grLab struct {
	frr      *netlab.FRR
	bird     *netlab.BIRD
	node     *netlab.Namespace
	nodeName string
}

// tables are the routers' views of what the agent sent them.
func (g grLab) tables() []routeTable {
	return []routeTable{frrTable{g.frr, grNodeAddr}, birdTable{g.bird, grBIRDProtocol}}
}

// grTopology is a node namespace linked to FRR and to BIRD (graceful restart on,
// restart time restartTime in seconds on all sides) and the API objects that make the
// node's agent send both routes prefixes, 1,000 Services of external IPs at a time
// (routes must be a multiple of 1,000).
func grTopology(t *testing.T, lab *netlab.Lab, namePrefix string, routes int, restartTime int32) grLab {
	t.Helper()
	node := lab.Namespace("node")
	nodeName := namePrefix + strings.Trim(lab.Prefix(), "-")
	routerNS, birdNS := lab.Namespace("router"), lab.Namespace("bird")
	lab.Link(node, "to-router", []string{grNodeAddr + "/30"}, routerNS, "to-node", []string{grFRRAddr + "/30"})
	lab.Link(node, "to-bird", []string{grNodeBIRDAddr + "/30"}, birdNS, "to-node", []string{grBIRDAddr + "/30"})
	router := netlab.StartFRR(routerNS, netlab.FRRConfig{ASN: 65087, RouterID: grFRRAddr, ListenAddrs: []string{grFRRAddr}, RawConfig: fmt.Sprintf(`
bgp graceful-restart
bgp graceful-restart restart-time %d
neighbor %s remote-as 65001
neighbor %s timers connect 1
neighbor %s graceful-restart
`, restartTime, grNodeAddr, grNodeAddr, grNodeAddr)})
	bird := netlab.StartBIRD(birdNS, fmt.Sprintf(`router id %s;
protocol device {}
protocol bgp %s {
  local %s as 65086;
  neighbor %s as 65001;
  connect delay time 1; connect retry time 1; error wait time 1,5;
  graceful restart on;
  graceful restart time %d;
  ipv4 { import all; export none; };
}
`, grBIRDAddr, grBIRDProtocol, grBIRDAddr, grNodeBIRDAddr, restartTime))
	ensureNamespace(t)
	sel := &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"advertise": kbgpv1.LabelValue(nodeName)}}
	peer := func(name, addr string, asn int64) kbgpv1.BGPNodePeer {
		return kbgpv1.BGPNodePeer{BGPPeer: kbgpv1.BGPPeer{Name: name, PeerAddress: addr, PeerASN: asn, PeerConfigRef: &kbgpv1.PeerConfigReference{Name: nodeName}}}
	}
	create(t, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: nodeName}},
		&kbgpv1.BGPPeerConfig{ObjectMeta: metav1.ObjectMeta{Name: nodeName}, Spec: kbgpv1.BGPPeerConfigSpec{
			Timers:          &kbgpv1.BGPTimers{ConnectRetryTimeSeconds: ptr.To[int32](1), HoldTimeSeconds: ptr.To[int32](9), KeepAliveTimeSeconds: ptr.To[int32](3)},
			GracefulRestart: &kbgpv1.BGPGracefulRestart{Enabled: true, RestartTimeSeconds: ptr.To(restartTime)},
			Families:        []kbgpv1.BGPFamily{{AFI: kbgpv1.AFIIPv4, SAFI: kbgpv1.SAFIUnicast, Advertisements: sel}},
		}},
		&kbgpv1.BGPAdvertisement{ObjectMeta: metav1.ObjectMeta{Name: nodeName, Labels: map[string]string{"advertise": nodeName}},
			Spec: kbgpv1.BGPAdvertisementSpec{Advertisements: []kbgpv1.Advertisement{{AdvertisementType: kbgpv1.AdvertisementService,
				Selector: &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"gr-test": kbgpv1.LabelValue(nodeName)}},
				// A thousand external IPs per Service (above the default cap of 8).
				Service: &kbgpv1.ServiceAdvertisement{Addresses: []kbgpv1.ServiceAddressType{kbgpv1.ServiceExternalIP}, ExternalIPPrefixes: []kbgpv1.CIDR{"198.18.0.0/15"},
					MaxAddressesPerService: ptr.To[int32](1000)}}}}},
		&kbgpv1.BGPNodeConfig{ObjectMeta: metav1.ObjectMeta{Name: nodeName}, Spec: kbgpv1.BGPNodeConfigSpec{BGPInstances: []kbgpv1.BGPNodeInstance{{
			BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: 65001, RouterID: routerID},
			Peers:               []kbgpv1.BGPNodePeer{peer("router", grFRRAddr, 65087), peer("bird", grBIRDAddr, 65086)},
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
	return grLab{frr: router, bird: bird, node: node, nodeName: nodeName}
}

// createGRService creates a Service of grTopology's node whose external IPs the agent
// sends its routers.
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

// routeTable is one router's view of the routes the agent sent it.
type routeTable interface {
	// received is how many routes the router holds from the agent, stale ones
	// included, and whether the session is Established.
	received() (int, bool, error)
	// String names the router in messages.
	String() string
}

// waitReceived waits until every table holds n routes from the agent.
func waitReceived(t *testing.T, n int, tables ...routeTable) {
	t.Helper()
	for _, table := range tables {
		netlab.WaitFor(t, 2*sessionTimeout, 500*time.Millisecond, func() (bool, string) {
			got, _, err := table.received()
			return err == nil && got == n, fmt.Sprintf("%s holds %d routes (%v), want %d", table, got, err, n)
		})
	}
}

// sampleUntilSettled samples the tables' route counts, each table in a goroutine of
// its own as fast as its router answers (FRR's vtysh in 30–40 ms, BIRD's birdc in about
// 5), until every session is Established again with the whole table (want routes) and
// 10 s more have passed, and returns the least count each table showed.
func sampleUntilSettled(t *testing.T, want int, tables ...routeTable) map[routeTable]int {
	t.Helper()
	type view struct {
		least, samples int
		full           bool
	}
	var mu sync.Mutex
	views := make([]view, len(tables))
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i, table := range tables {
		views[i].least = want
		wg.Add(1)
		go func() {
			defer wg.Done()
			repeatUntilClosed(stop, func() {
				n, established, err := table.received()
				mu.Lock()
				defer mu.Unlock()
				if err == nil {
					views[i].samples++
					views[i].least = min(views[i].least, n)
				}
				views[i].full = err == nil && established && n == want
			})
		}()
	}
	result := func() (least map[routeTable]int, samples []int, full bool) {
		mu.Lock()
		defer mu.Unlock()
		least, full = map[routeTable]int{}, true
		for i, table := range tables {
			least[table] = views[i].least
			samples = append(samples, views[i].samples)
			full = full && views[i].full
		}
		return least, samples, full
	}
	var settled time.Time
	for deadline := time.Now().Add(2 * sessionTimeout); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		least, samples, full := result()
		if settled.IsZero() && full {
			settled = time.Now()
		}
		if !settled.IsZero() && time.Since(settled) > 10*time.Second {
			close(stop)
			wg.Wait()
			t.Logf("samples %v of %v", samples, tables)
			return least
		}
	}
	close(stop)
	wg.Wait()
	least, _, _ := result()
	t.Fatalf("the routers never settled with the full table again (least %v)", least)
	return least
}

// repeatUntilClosed calls f again and again, as fast as it returns, until stop is
// closed: the samplers that watch the routers' tables through a restart.
func repeatUntilClosed(stop <-chan struct{}, f func()) {
	for {
		select {
		case <-stop:
			return
		default:
		}
		f()
	}
}

// frrTable counts the IPv4 prefixes FRR holds from neighbor.
type frrTable struct {
	f        *netlab.FRR
	neighbor string
}

func (r frrTable) String() string { return "FRR" }

func (r frrTable) received() (int, bool, error) {
	var sum struct {
		Peers map[string]struct {
			PfxRcd int    `json:"pfxRcd"`
			State  string `json:"state"`
		} `json:"peers"`
	}
	if err := r.f.JSON("show bgp ipv4 unicast summary json", &sum); err != nil {
		return 0, false, err
	}
	p := sum.Peers[r.neighbor]
	return p.PfxRcd, p.State == "Established", nil
}

// birdTable counts the routes BIRD holds from one BGP protocol.
type birdTable struct {
	b        *netlab.BIRD
	protocol string
}

func (r birdTable) String() string { return "BIRD" }

// birdCountRe matches "20000 of 20000 routes for 20000 networks in table master4".
var birdCountRe = regexp.MustCompile(`(\d+) of \d+ routes`)

func (r birdTable) received() (int, bool, error) {
	out, err := r.b.Birdc("show", "route", "protocol", r.protocol, "count")
	if err != nil {
		return 0, false, err
	}
	m := birdCountRe.FindStringSubmatch(out)
	if m == nil {
		return 0, false, fmt.Errorf("birdc route count: %q", out)
	}
	n, _ := strconv.Atoi(m[1])
	p, err := r.b.Protocol(r.protocol)
	return n, err == nil && p.BGPState == "Established", err
}

// birdSawForwardingState reports whether BIRD's protocol view says the neighbour
// restarted (R bit: "Restart recovery") with its IPv4 forwarding state kept (F bit:
// "AF preserved: ipv4") in the graceful-restart capability it received.
func birdSawForwardingState(raw string) bool {
	_, received, ok := strings.Cut(raw, "Neighbor capabilities")
	if !ok {
		return false
	}
	_, gr, ok := strings.Cut(received, "Graceful restart\n")
	if !ok {
		return false
	}
	_, preserved, _ := strings.Cut(gr, "AF preserved:")
	preserved, _, _ = strings.Cut(preserved, "\n")
	return strings.Contains(gr, "Restart recovery") && slices.Contains(strings.Fields(preserved), "ipv4")
}

// grInfo is FRR's gracefulRestartInfo of a neighbor, for messages.
func grInfo(raw json.RawMessage) string {
	var n struct {
		Info json.RawMessage `json:"gracefulRestartInfo"`
	}
	_ = json.Unmarshal(raw, &n)
	return string(n.Info)
}
