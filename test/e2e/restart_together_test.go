package e2e

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/frr"
	"kbgp.io/kbgp/test/e2e/netlab"
)

// The restart-together topology: FRR and three nodes on one segment, each node
// announcing the same external IPs.
const (
	togetherFRR    = "10.76.0.1"
	togetherLabel  = "e2e-together"
	togetherRoutes = 20
	// togetherNoLLGR is announced with NO_LLGR: FRR drops it at the restart time.
	togetherNoLLGR = "10.79.1.1"
)

// togetherLab is the restart-together topology with its agents.
type togetherLab struct {
	lab    *netlab.Lab
	frr    *netlab.FRR
	names  []string
	addrs  []string
	ns     []*netlab.Namespace
	agents []*agentProcess
	// states are the agents' state directories, made by the top-level test: an agent
	// restarted in a subtest keeps its directory.
	states []string
}

// TestSeveralAgentsRestartAtOnce: every agent of a three-node cluster killed at the
// same moment (SIGKILL: no graceful stop, no marker; each restarts from its
// checkpoint) and started again in random order. FRR must not lose a route of any
// node for longer than the restart time:
//  1. graceful restart (120 s), agents back in random order over 60 s: FRR's count of
//     paths from every node never drops.
//  2. long-lived graceful restart (restart time 5 s, long-lived stale time 25 s),
//     agents away 15 s, three times the restart time: the paths stay, marked
//     LLGR_STALE, except the one sent with NO_LLGR, which FRR dropped; all are fresh
//     again once the agents are back.
//  3. the long-lived timer bounds it: agents away for good, the paths leave FRR
//     between the restart time plus the long-lived stale time and 15 s later.
//  4. negative control, without long-lived graceful restart: the paths are gone once
//     the restart time (5 s) has run out.
func TestSeveralAgentsRestartAtOnce(t *testing.T) {
	tl := startTogether(t)
	tl.waitPaths(t, togetherRoutes)

	t.Run("graceful restart: agents back in random order over 60 s", func(t *testing.T) {
		least := tl.restartAllWatching(t, 60*time.Second, 0)
		tl.requireNoLoss(t, least)
	})

	t.Run("long-lived: agents away three times the restart time", func(t *testing.T) {
		tl.setGracefulRestart(t, 5, ptr.To[int32](25))
		least := tl.restartAllWatching(t, 5*time.Second, 15*time.Second)
		tl.requireNoLoss(t, least)
		tl.frr.WaitRoute(t, "ipv4", togetherNoLLGR+"/32", sessionTimeout, func(r frr.Route) bool { return len(r.Paths) == len(tl.addrs) })
	})

	t.Run("long-lived: the paths go when the long-lived timer ends", func(t *testing.T) {
		killed := tl.killAll(t)
		gone := tl.waitGone(t, killed, 60*time.Second)
		if gone < 28*time.Second || gone > 45*time.Second {
			t.Errorf("the paths left FRR %v after the agents were killed, want after restart time + long-lived stale time (30 s)", gone.Round(time.Second))
		}
		t.Logf("the paths left FRR %v after the kill", gone.Round(100*time.Millisecond))
		tl.startAll(t)
		tl.waitPaths(t, togetherRoutes)
	})

	t.Run("negative control: without long-lived graceful restart the paths go at the restart time", func(t *testing.T) {
		tl.setGracefulRestart(t, 5, nil)
		killed := tl.killAll(t)
		gone := tl.waitGone(t, killed, 30*time.Second)
		if gone > 12*time.Second {
			t.Errorf("without long-lived graceful restart the paths stayed %v, want them gone after the 5 s restart time", gone.Round(time.Second))
		}
		t.Logf("without long-lived graceful restart the paths left FRR %v after the kill", gone.Round(100*time.Millisecond))
		tl.startAll(t)
	})
}

func startTogether(t *testing.T) *togetherLab {
	t.Helper()
	lab := netlab.New(t)
	br := lab.Bridge("seg")
	frrNS, ctl := lab.Namespace("frr"), lab.Namespace("ctl")
	br.Attach(frrNS, "to-seg", []string{togetherFRR + "/24"})
	tl := &togetherLab{lab: lab}
	var cfg strings.Builder
	for i := range 3 {
		name := fmt.Sprintf("e2e-together-%d-%s", i+1, strings.Trim(lab.Prefix(), "-"))
		addr := fmt.Sprintf("10.76.0.%d", 11+i)
		ns := lab.Namespace(fmt.Sprintf("node%d", i+1))
		br.Attach(ns, "to-seg", []string{addr + "/24"})
		tl.names, tl.addrs, tl.ns = append(tl.names, name), append(tl.addrs, addr), append(tl.ns, ns)
		fmt.Fprintf(&cfg, "neighbor %s remote-as 65001\nneighbor %s timers 3 9\nneighbor %s timers connect 1\nneighbor %s graceful-restart\n", addr, addr, addr, addr)
	}
	tl.frr = netlab.StartFRR(frrNS, netlab.FRRConfig{ASN: 65010, RouterID: togetherFRR, ListenAddrs: []string{togetherFRR},
		RawConfig: "bgp graceful-restart\nbgp graceful-restart restart-time 120\nbgp long-lived-graceful-restart stale-time 25\n" + cfg.String()})
	createTogetherObjects(t, tl.names, tl.addrs)
	startOperatorProcess(t, lab, ctl)
	tl.agents = make([]*agentProcess, len(tl.names))
	for range tl.names {
		tl.states = append(tl.states, t.TempDir())
	}
	// Registered after the directories, so it runs before they go: agents restarted in
	// subtests are otherwise stopped only by the lab, after the removal, and one still
	// writing its checkpoint would leave its directory behind.
	t.Cleanup(func() {
		for _, a := range tl.agents {
			if a != nil {
				_ = a.proc.Stop()
			}
		}
	})
	tl.startAll(t)
	return tl
}

// createTogetherObjects: one cluster config for the three nodes (graceful restart
// 120 s), one Service whose external IPs every node announces.
func createTogetherObjects(t *testing.T, names, addrs []string) {
	t.Helper()
	ensureNamespace(t)
	sel := &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"advertise": togetherLabel}}
	pc := &kbgpv1.BGPPeerConfig{ObjectMeta: metav1.ObjectMeta{Name: togetherLabel}, Spec: kbgpv1.BGPPeerConfigSpec{
		Timers:          &kbgpv1.BGPTimers{ConnectRetryTimeSeconds: ptr.To[int32](1), HoldTimeSeconds: ptr.To[int32](9), KeepAliveTimeSeconds: ptr.To[int32](3)},
		GracefulRestart: &kbgpv1.BGPGracefulRestart{Enabled: true, RestartTimeSeconds: ptr.To[int32](120)},
		Families:        []kbgpv1.BGPFamily{{AFI: kbgpv1.AFIIPv4, SAFI: kbgpv1.SAFIUnicast, Advertisements: sel}}}}
	cc := segmentClusterConfig(togetherLabel, togetherFRR)
	ad := &kbgpv1.BGPAdvertisement{ObjectMeta: metav1.ObjectMeta{Name: togetherLabel, Labels: map[string]string{"advertise": togetherLabel}},
		Spec: kbgpv1.BGPAdvertisementSpec{Advertisements: []kbgpv1.Advertisement{{
			AdvertisementType: kbgpv1.AdvertisementService,
			Selector:          &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"together": togetherLabel}},
			Service: &kbgpv1.ServiceAdvertisement{Addresses: []kbgpv1.ServiceAddressType{kbgpv1.ServiceExternalIP},
				ExternalIPPrefixes: []kbgpv1.CIDR{"10.79.0.0/24"}, MaxAddressesPerService: ptr.To[int32](togetherRoutes)},
		}, {
			// One address kept out of long-lived graceful restart with NO_LLGR.
			AdvertisementType: kbgpv1.AdvertisementService,
			Selector:          &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"together": togetherLabel + "-no-llgr"}},
			Service: &kbgpv1.ServiceAdvertisement{Addresses: []kbgpv1.ServiceAddressType{kbgpv1.ServiceExternalIP},
				ExternalIPPrefixes: []kbgpv1.CIDR{togetherNoLLGR + "/32"}},
			Attributes: &kbgpv1.BGPAttributes{Communities: &kbgpv1.BGPCommunities{Standard: []kbgpv1.StandardCommunity{"65535:7"}}},
		}}}}
	ips := make([]string, togetherRoutes)
	for i := range ips {
		ips[i] = fmt.Sprintf("10.79.0.%d", i+1)
	}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: togetherLabel, Labels: map[string]string{"together": togetherLabel}},
		Spec: corev1.ServiceSpec{ExternalIPs: ips, Ports: []corev1.ServicePort{{Port: 80}}}}
	noLLGR := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: togetherLabel + "-no-llgr", Labels: map[string]string{"together": togetherLabel + "-no-llgr"}},
		Spec: corev1.ServiceSpec{ExternalIPs: []string{togetherNoLLGR}, Ports: []corev1.ServicePort{{Port: 80}}}}
	create(t, pc, cc, ad, svc, noLLGR)
	createSegmentNodes(t, togetherLabel, names, addrs)
}

// setGracefulRestart changes the peer config's graceful restart (a capability: every
// session resets) and waits until FRR has every node's paths again.
func (tl *togetherLab) setGracefulRestart(t *testing.T, restart int32, longLived *int32) {
	t.Helper()
	update(t, &kbgpv1.BGPPeerConfig{ObjectMeta: metav1.ObjectMeta{Name: togetherLabel}}, func(pc *kbgpv1.BGPPeerConfig) {
		pc.Spec.GracefulRestart = &kbgpv1.BGPGracefulRestart{Enabled: true, RestartTimeSeconds: ptr.To(restart), LongLivedStaleTimeSeconds: longLived}
	})
	netlab.WaitFor(t, 2*sessionTimeout, 500*time.Millisecond, func() (bool, string) {
		for _, addr := range tl.addrs {
			n, err := tl.frr.Neighbor(addr)
			if err != nil {
				return false, err.Error()
			}
			want := `"longLivedGracefulRestart"`
			if has := strings.Contains(string(n.Raw), want); has != (longLived != nil) {
				return false, fmt.Sprintf("FRR's view of %s: long-lived graceful restart negotiated %v, want %v", addr, has, longLived != nil)
			}
		}
		return true, ""
	})
	tl.waitPaths(t, togetherRoutes)
}

// startAll starts an agent on every node that has none running.
func (tl *togetherLab) startAll(t *testing.T) {
	t.Helper()
	for i := range tl.agents {
		tl.start(t, i)
	}
}

func (tl *togetherLab) start(t *testing.T, i int) {
	t.Helper()
	if a := tl.agents[i]; a != nil {
		a.relay.Close()
	}
	tl.agents[i] = startAgentWithState(t, tl.lab, tl.ns[i], tl.names[i], tl.states[i])
}

// killAll sends SIGKILL to every agent at the same moment and returns when.
func (tl *togetherLab) killAll(t *testing.T) time.Time {
	t.Helper()
	at := time.Now()
	for _, a := range tl.agents {
		if err := a.proc.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
	}
	for _, a := range tl.agents {
		if !a.proc.Wait(10 * time.Second) {
			t.Fatal("an agent outlived SIGKILL by 10 s")
		}
	}
	return at
}

// restartAllWatching kills every agent, waits away, then starts them again in random
// order at random moments within spread, sampling FRR's paths all along until every
// node's are fresh again. It returns the least count of paths seen from each node.
func (tl *togetherLab) restartAllWatching(t *testing.T, spread, away time.Duration) map[string]int {
	t.Helper()
	least := map[string]int{}
	for _, addr := range tl.addrs {
		least[addr] = togetherRoutes
	}
	var mu sync.Mutex
	stop := make(chan struct{})
	sampled := make(chan int)
	go func() {
		n := 0
		defer func() { sampled <- n }()
		repeatUntilClosed(stop, func() {
			counts, _, err := tl.paths()
			if err != nil {
				return
			}
			n++
			mu.Lock()
			defer mu.Unlock()
			for addr := range least {
				least[addr] = min(least[addr], counts[addr])
			}
		})
	}()
	killed := tl.killAll(t)
	time.Sleep(away)
	if away > 0 {
		tl.logStale(t, time.Since(killed))
	}
	order := rand.Perm(len(tl.agents))
	offsets := make([]time.Duration, len(order))
	for i := range offsets {
		offsets[i] = time.Duration(rand.Int64N(int64(spread)))
	}
	for i, node := range order {
		time.Sleep(time.Until(killed.Add(away + offsets[i])))
		t.Logf("starting %s's agent %v after the kill", tl.names[node], time.Since(killed).Round(100*time.Millisecond))
		tl.start(t, node)
	}
	tl.waitFresh(t)
	close(stop)
	t.Logf("%d samples of FRR's table", <-sampled)
	mu.Lock()
	defer mu.Unlock()
	return least
}

// logStale checks, while the agents are away, that FRR holds their paths stale, and
// says whether they carry LLGR_STALE.
func (tl *togetherLab) logStale(t *testing.T, since time.Duration) {
	t.Helper()
	counts, llgr, err := tl.paths()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%v after the kill FRR holds %v paths per node, %d of them LLGR_STALE", since.Round(100*time.Millisecond), counts, llgr)
	if llgr != togetherRoutes*len(tl.addrs) {
		t.Errorf("%d paths carry LLGR_STALE past the restart time, want all %d", llgr, togetherRoutes*len(tl.addrs))
	}
	routes, err := tl.frr.Routes("ipv4")
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := routes[togetherNoLLGR+"/32"]; ok {
		t.Errorf("FRR kept %s, sent with NO_LLGR, past the restart time: %v", togetherNoLLGR, r)
	}
}

func (tl *togetherLab) requireNoLoss(t *testing.T, least map[string]int) {
	t.Helper()
	for addr, n := range least {
		if n < togetherRoutes {
			t.Errorf("FRR's paths from %s fell to %d of %d", addr, n, togetherRoutes)
		}
	}
	t.Logf("least paths per node during the restart: %v", least)
}

// paths counts FRR's paths for the Service's addresses per neighbor, and how many of
// them carry LLGR_STALE.
func (tl *togetherLab) paths() (map[string]int, int, error) {
	routes, err := tl.frr.Routes("ipv4")
	if err != nil {
		return nil, 0, err
	}
	counts := map[string]int{}
	llgr := 0
	for prefix, r := range routes {
		if !strings.HasPrefix(prefix, "10.79.0.") {
			continue
		}
		for _, p := range r.Paths {
			counts[p.PeerID]++
			for _, c := range p.Communities {
				if strings.EqualFold(strings.ReplaceAll(c, "-", ""), "llgrstale") {
					llgr++
				}
			}
		}
	}
	return counts, llgr, nil
}

// waitPaths waits until FRR holds n paths from every node.
func (tl *togetherLab) waitPaths(t *testing.T, n int) {
	t.Helper()
	netlab.WaitFor(t, 2*sessionTimeout, 500*time.Millisecond, func() (bool, string) {
		counts, _, err := tl.paths()
		if err != nil {
			return false, err.Error()
		}
		for _, addr := range tl.addrs {
			if counts[addr] != n {
				return false, fmt.Sprintf("FRR holds %v paths per node, want %d from each", counts, n)
			}
		}
		return true, ""
	})
}

// waitFresh waits until every session is Established and no path is stale.
func (tl *togetherLab) waitFresh(t *testing.T) {
	t.Helper()
	netlab.WaitFor(t, 3*sessionTimeout, 500*time.Millisecond, func() (bool, string) {
		for _, addr := range tl.addrs {
			if n, err := tl.frr.Neighbor(addr); err != nil || n.State != "Established" {
				return false, fmt.Sprintf("FRR's session with %s: %s %v", addr, n.State, err)
			}
		}
		routes, err := tl.frr.Routes("ipv4")
		if err != nil {
			return false, err.Error()
		}
		fresh := 0
		for prefix, r := range routes {
			for _, p := range r.Paths {
				if strings.HasPrefix(prefix, "10.79.0.") && !p.Stale && len(p.Communities) == 0 {
					fresh++
				}
			}
		}
		return fresh == togetherRoutes*len(tl.addrs), fmt.Sprintf("%d of %d paths fresh (not stale, no LLGR_STALE)", fresh, togetherRoutes*len(tl.addrs))
	})
}

// waitGone waits until FRR holds no path for the Service's addresses and says how long
// after killed that was.
func (tl *togetherLab) waitGone(t *testing.T, killed time.Time, timeout time.Duration) time.Duration {
	t.Helper()
	netlab.WaitFor(t, timeout, 200*time.Millisecond, func() (bool, string) {
		counts, _, err := tl.paths()
		if err != nil {
			return false, err.Error()
		}
		total := 0
		for _, n := range counts {
			total += n
		}
		return total == 0, fmt.Sprintf("FRR still holds %v paths per node", counts)
	})
	return time.Since(killed)
}
