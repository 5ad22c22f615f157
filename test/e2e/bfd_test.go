package e2e

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/test/e2e/netlab"
)

const (
	// bfdNodeAddr and bfdRouterAddr are the two ends of bfdTopology's link.
	bfdNodeAddr   = "10.93.0.1"
	bfdRouterAddr = "10.93.0.2"
	// bfdHoldTime is the BGP hold time of bfdTopology's session (keepalive a third).
	bfdHoldTime = 9 * time.Second
	// bfdStatusTimeout bounds a change in the node status: the agent writes it at most
	// every 5 s (with jitter).
	bfdStatusTimeout = 15 * time.Second
)

// TestBFD: with BFD on both ends (300 ms, multiplier 3) the first session stays up (FRR
// shows it Established for a minute, never dropped), and a session whose link goes silent
// — every packet dropped, the link still up, so neither TCP nor the kernel notices — is
// closed on FRR's side within about a second (BFD down, not the 9 s hold time) and on the
// agent's side for BFD too; the negative control, the same session and silence without
// BFD, is still Established 4 s later and goes down only with the hold time. It runs
// sequentially (not independent): its timings need a CPU no other test shares.
func TestBFD(t *testing.T) {
	if _, err := exec.LookPath("iptables"); err != nil {
		t.Fatalf("iptables is needed to silence the link (hack/test-deps.sh installs it): %v", err)
	}
	t.Run("with BFD the silent link closes the session within about a second", func(t *testing.T) {
		router, agent, nodeName := bfdTopology(t, true)
		router.WaitNeighborState(t, bfdNodeAddr, "Established", sessionTimeout)
		netlab.WaitFor(t, sessionTimeout, 200*time.Millisecond, func() (bool, string) {
			p, err := router.BFDPeer(bfdNodeAddr)
			return err == nil && p.Status == "up", fmt.Sprintf("FRR's BFD peer: %+v (%v)", p, err)
		})
		p, _ := router.BFDPeer(bfdNodeAddr)
		if p.RemoteReceiveInterval != 300 || p.RemoteTransmitInterval != 300 || p.RemoteDetectMultiplier != 3 {
			t.Errorf("FRR sees the agent's BFD timers rx %d ms tx %d ms x%d, want 300/300 x3",
				p.RemoteReceiveInterval, p.RemoteTransmitInterval, p.RemoteDetectMultiplier)
		}
		waitPeerStatus(t, nodeName, "agent's BFD Up and session Established", func(st kbgpv1.BGPNodePeerStatus) bool {
			return st.PeeringState == kbgpv1.PeeringStateEstablished && st.BFDState == kbgpv1.BFDStateUp
		})
		// The first session stays up. When it is Established FRR 8.4 moves its BFD
		// session to the session's source address and interface; had our BFD been Up
		// before, bgpd would take the new BFD session's Down for BFD going down and
		// reset the session (GoBGP patch "bfd after established" keeps our BFD Down
		// until the session is Established).
		firstSessionStays(t, router, time.Minute)

		since := silence(t, router.Namespace(), "to-node")
		frrCloses(t, router, since, 3*time.Second, "BFD", "with BFD")

		// The agent's side: GoBGP's BFD session expires (it logs when, to the
		// millisecond) and it closes the BGP session, long before its hold timer.
		agentTook := waitAgentLogged(t, agent, since, 3*time.Second, "Expired", "bfd", "the agent's BFD session expired")
		if agentTook > 3*time.Second {
			t.Errorf("the agent's BFD session expired %v after the silence, want within 3 s", agentTook)
		}
		st := waitPeerStatus(t, nodeName, "agent's session down and BFD not Up", func(st kbgpv1.BGPNodePeerStatus) bool {
			return st.PeeringState != kbgpv1.PeeringStateEstablished && st.BFDState != kbgpv1.BFDStateUp
		})
		t.Logf("agent's status %v after the silence: peeringState %s, bfdState %s", time.Since(since).Round(time.Millisecond), st.PeeringState, st.BFDState)
		netlab.WaitFor(t, bfdStatusTimeout, 500*time.Millisecond, func() (bool, string) {
			evs := nodeEvents(t, nodeName)
			return hasEvent(evs, "BFDDown", ""), fmt.Sprintf("events: %q", evs)
		})
		// Past the hold time: no hold timer expired on the agent's side, BFD had closed
		// the session before.
		time.Sleep(time.Until(since.Add(bfdHoldTime + time.Second)))
		if took, held := agentLogged(t, agent, since, "hold timer expired", ""); held {
			t.Errorf("the agent's hold timer expired %v after the silence: BFD did not close the session first", took)
		}
	})

	t.Run("negative control: without BFD the session outlives the silence until the hold time", func(t *testing.T) {
		router, agent, nodeName := bfdTopology(t, false)
		router.WaitNeighborState(t, bfdNodeAddr, "Established", sessionTimeout)
		waitPeerStatus(t, nodeName, "agent's session Established, no BFD state", func(st kbgpv1.BGPNodePeerStatus) bool {
			return st.PeeringState == kbgpv1.PeeringStateEstablished && st.BFDState == ""
		})

		since := silence(t, router.Namespace(), "to-node")
		for time.Since(since) < 4*time.Second {
			n, err := router.Neighbor(bfdNodeAddr)
			if err != nil {
				t.Fatal(err)
			}
			if n.State != "Established" {
				t.Fatalf("without BFD FRR left Established %v after the silence (%s, notification %q): the control cannot tell",
					time.Since(since).Round(time.Millisecond), n.State, n.LastNotificationReason)
			}
			time.Sleep(200 * time.Millisecond)
		}
		if st := nodeStatus(t, nodeName); len(st.BGPInstances) == 0 || len(st.BGPInstances[0].Peers) == 0 ||
			st.BGPInstances[0].Peers[0].PeeringState != kbgpv1.PeeringStateEstablished {
			t.Errorf("4 s after the silence the agent's status no longer shows the session Established: %+v", st.BGPInstances)
		}
		frrCloses(t, router, since, bfdHoldTime+3*time.Second, "Hold Timer", "without BFD")
		agentTook := waitAgentLogged(t, agent, since, 5*time.Second, "hold timer expired", "", "without BFD the agent's hold timer expired")
		if agentTook < 4*time.Second {
			t.Errorf("the agent's hold timer expired only %v after the silence", agentTook)
		}
		st := waitPeerStatus(t, nodeName, "agent's session down", func(st kbgpv1.BGPNodePeerStatus) bool {
			return st.PeeringState != kbgpv1.PeeringStateEstablished
		})
		t.Logf("agent's status %v after the silence: peeringState %s", time.Since(since).Round(time.Millisecond), st.PeeringState)
		if evs := nodeEvents(t, nodeName); hasEvent(evs, "BFDDown", "") {
			t.Errorf("without BFD the agent reported BFD: %q", evs)
		}
	})
}

// firstSessionStays checks FRR's neighbor bfdNodeAddr every 500 ms until its first
// session has been Established for d: never dropped, never re-established.
func firstSessionStays(t *testing.T, router *netlab.FRR, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d + 10*time.Second)
	for {
		n, err := router.Neighbor(bfdNodeAddr)
		if err != nil {
			t.Fatal(err)
		}
		if n.State != "Established" || n.ConnectionsDropped != 0 || n.ConnectionsEstablished != 1 {
			t.Fatalf("FRR's first session with the agent did not stay up: %s, %d established, %d dropped (last reset %q, notification %q)",
				n.State, n.ConnectionsEstablished, n.ConnectionsDropped, n.LastResetDueTo, n.LastNotificationReason)
		}
		if up := time.Duration(n.UpMsec) * time.Millisecond; up >= d {
			t.Logf("FRR's first session with the agent up for %v, never dropped", up.Round(time.Millisecond))
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("FRR's session with the agent reports only %v up after waiting %v", time.Duration(n.UpMsec)*time.Millisecond, d+10*time.Second)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// bfdTopology is a node namespace linked to FRR (zebra, and bfdd when withBFD) on
// 10.93.0.0/30 and the API objects of one eBGP session between them (hold time 9 s,
// keepalive 3 s) with BFD at 300 ms x3 on both ends when withBFD; it starts the
// node's agent and returns FRR, the agent and the node's name.
func bfdTopology(t *testing.T, withBFD bool) (*netlab.FRR, *agentProcess, string) {
	t.Helper()
	lab := netlab.New(t)
	node := lab.Namespace("node")
	nodeName := "e2e-bfd-" + strings.Trim(lab.Prefix(), "-")
	routerNS := lab.Namespace("router")
	lab.Link(node, "to-router", []string{bfdNodeAddr + "/30"}, routerNS, "to-node", []string{bfdRouterAddr + "/30"})
	raw := "neighbor " + bfdNodeAddr + " remote-as 65001\nneighbor " + bfdNodeAddr + " timers connect 1\n"
	cfg := netlab.FRRConfig{ASN: 65093, RouterID: bfdRouterAddr, ListenAddrs: []string{bfdRouterAddr}, Zebra: true}
	spec := kbgpv1.BGPPeerConfigSpec{
		Timers: &kbgpv1.BGPTimers{ConnectRetryTimeSeconds: ptr.To[int32](1), HoldTimeSeconds: ptr.To(int32(bfdHoldTime / time.Second)), KeepAliveTimeSeconds: ptr.To(int32(bfdHoldTime / time.Second / 3))},
	}
	if withBFD {
		cfg.BFD = true
		cfg.BFDConfig = "bfd\n profile e2e\n  receive-interval 300\n  transmit-interval 300\n  detect-multiplier 3\n exit\nexit\n"
		raw += "neighbor " + bfdNodeAddr + " bfd profile e2e\n"
		spec.BFD = &kbgpv1.BGPBFD{Enabled: true, MinRxMilliseconds: ptr.To[int32](300), MinTxMilliseconds: ptr.To[int32](300), DetectMultiplier: ptr.To[int32](3)}
	}
	cfg.RawConfig = raw
	router := netlab.StartFRR(routerNS, cfg)
	ensureNamespace(t)
	create(t, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: nodeName}},
		&kbgpv1.BGPPeerConfig{ObjectMeta: metav1.ObjectMeta{Name: nodeName}, Spec: spec},
		&kbgpv1.BGPNodeConfig{ObjectMeta: metav1.ObjectMeta{Name: nodeName}, Spec: kbgpv1.BGPNodeConfigSpec{BGPInstances: []kbgpv1.BGPNodeInstance{{
			BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: 65001, RouterID: routerID},
			Peers: []kbgpv1.BGPNodePeer{{BGPPeer: kbgpv1.BGPPeer{Name: "router", PeerAddress: bfdRouterAddr, PeerASN: 65093,
				PeerConfigRef: &kbgpv1.PeerConfigReference{Name: nodeName}}}},
		}}}})
	return router, startAgent(t, lab, node, nodeName), nodeName
}

// silence drops every packet in and out of ifname inside ns with iptables and
// ip6tables — the link stays up, so only keepalives or BFD can tell — and returns when
// the rules are in. They are removed when the test ends (the namespace goes with its
// lab anyway).
func silence(t *testing.T, ns *netlab.Namespace, ifname string) time.Time {
	t.Helper()
	rules := [][]string{{"INPUT", "-i", ifname, "-j", "DROP"}, {"OUTPUT", "-o", ifname, "-j", "DROP"}}
	tools := []string{"iptables", "ip6tables"}
	for _, tool := range tools {
		for _, r := range rules {
			ns.MustExec(append([]string{tool, "-w", "-A"}, r...)...)
		}
	}
	since := time.Now()
	t.Cleanup(func() {
		for _, tool := range tools {
			for _, r := range rules {
				if out, err := ns.Exec(append([]string{tool, "-w", "-D"}, r...)...); err != nil {
					t.Logf("removing the drop rule: %v: %s", err, out)
				}
			}
		}
	})
	return since
}

// frrLeavesEstablished polls FRR's neighbor bfdNodeAddr as fast as vtysh answers until
// it is no longer Established and returns how long after since that was first seen;
// it fails the test if that takes longer than limit after since.
func frrLeavesEstablished(t *testing.T, f *netlab.FRR, since time.Time, limit time.Duration) time.Duration {
	t.Helper()
	state := ""
	for time.Since(since) <= limit {
		n, err := f.Neighbor(bfdNodeAddr)
		if err == nil && n.State != "Established" {
			return time.Since(since)
		}
		state = fmt.Sprintf("%s (%v)", n.State, err)
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("FRR's neighbor %s still %s %v after the link went silent, want down within %v", bfdNodeAddr, state, time.Since(since).Round(time.Millisecond), limit)
	return 0
}

// frrCloses waits (at most limit) until FRR leaves Established after the silence that
// began at since, and checks that its notification names want.
func frrCloses(t *testing.T, router *netlab.FRR, since time.Time, limit time.Duration, want, label string) {
	t.Helper()
	took := frrLeavesEstablished(t, router, since, limit)
	n, _ := router.Neighbor(bfdNodeAddr)
	t.Logf("%s FRR left Established %v after the link went silent (hold time %v; FRR: last reset %q, notification %q)",
		label, took.Round(time.Millisecond), bfdHoldTime, n.LastResetDueTo, n.LastNotificationReason)
	if !strings.Contains(n.LastNotificationReason, want) {
		t.Errorf("%s FRR closed the session with notification %q, want one naming %q", label, n.LastNotificationReason, want)
	}
}

// waitAgentLogged waits (at most timeout) until the agent logs msg (of topic, if set)
// after since, and returns how long after since it did.
func waitAgentLogged(t *testing.T, agent *agentProcess, since time.Time, timeout time.Duration, msg, topic, what string) time.Duration {
	t.Helper()
	var took time.Duration
	netlab.WaitFor(t, timeout, 100*time.Millisecond, func() (bool, string) {
		var ok bool
		took, ok = agentLogged(t, agent, since, msg, topic)
		return ok, fmt.Sprintf("the agent logged no %q since the silence", msg)
	})
	t.Logf("%s %v after the link went silent", what, took.Round(time.Millisecond))
	return took
}

// waitPeerStatus waits until the node status of bfdTopology's peer satisfies cond.
func waitPeerStatus(t *testing.T, node, what string, cond func(kbgpv1.BGPNodePeerStatus) bool) kbgpv1.BGPNodePeerStatus {
	t.Helper()
	return waitPeerStatusWithin(t, node, sessionTimeout, what, cond)
}

// waitPeerStatusWithin is waitPeerStatus with its own timeout.
func waitPeerStatusWithin(t *testing.T, node string, timeout time.Duration, what string, cond func(kbgpv1.BGPNodePeerStatus) bool) kbgpv1.BGPNodePeerStatus {
	t.Helper()
	var got kbgpv1.BGPNodePeerStatus
	netlab.WaitFor(t, timeout, 200*time.Millisecond, func() (bool, string) {
		for _, inst := range nodeStatus(t, node).BGPInstances {
			for _, p := range inst.Peers {
				if p.Name == "router" {
					got = p
					return cond(p), fmt.Sprintf("%s: peer status %+v", what, p)
				}
			}
		}
		return false, what + ": no status of peer router yet"
	})
	return got
}

// hasEvent reports whether events (nodeEvents' "Reason: message") has one of reason
// whose message contains substr.
func hasEvent(events []string, reason, substr string) bool {
	for _, e := range events {
		if strings.HasPrefix(e, reason+": ") && strings.Contains(e, substr) {
			return true
		}
	}
	return false
}

// agentLogged looks in the agent's JSON log for the first line after since with message
// msg (and GoBGP's Topic topic, unless empty) and returns how long after since it was
// logged.
func agentLogged(t *testing.T, a *agentProcess, since time.Time, msg, topic string) (time.Duration, bool) {
	t.Helper()
	for _, line := range strings.Split(a.proc.Log(), "\n") {
		var l struct {
			Time  time.Time `json:"time"`
			Msg   string    `json:"msg"`
			Topic string    `json:"Topic"`
		}
		if json.Unmarshal([]byte(line), &l) != nil || l.Msg != msg || (topic != "" && !strings.EqualFold(l.Topic, topic)) {
			continue
		}
		if l.Time.After(since) {
			return l.Time.Sub(since), true
		}
	}
	return 0, false
}
