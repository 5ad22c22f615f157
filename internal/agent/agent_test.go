package agent_test

import (
	"context"
	"log/slog"
	"net/netip"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/agent"
	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/bgp/bgpfake"
	"kbgp.io/kbgp/internal/contract"
	"kbgp.io/kbgp/internal/testing/wait"
)

const namespace = "kbgp-system"

var local = netip.MustParseAddr("127.0.0.1")

type logWriter struct{ t *testing.T }

func (w logWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// instance is the speaker every test node config runs.
var instance = bgp.InstanceKey{LocalASN: 65001}

// startAgent runs an agent for node in this process, on fake speakers, until stop is
// called or the test ends.
func startAgent(t *testing.T, cfg *rest.Config, node string) (routers *bgpfake.Factory, stop func()) {
	t.Helper()
	return startAgentWithInterval(t, cfg, node, 200*time.Millisecond)
}

// startAgentWithInterval is startAgent with the least time between status writes.
func startAgentWithInterval(t *testing.T, cfg *rest.Config, node string, statusInterval time.Duration) (routers *bgpfake.Factory, stop func()) {
	t.Helper()
	routers = &bgpfake.Factory{}
	return routers, runAgent(t, cfg, node, statusInterval, routers)
}

// startAgentWith runs an agent on the given fake speakers (faults injected by the test).
func startAgentWith(t *testing.T, cfg *rest.Config, node string, routers *bgpfake.Factory) (stop func()) {
	t.Helper()
	return runAgent(t, cfg, node, 200*time.Millisecond, routers)
}

func runAgent(t *testing.T, cfg *rest.Config, node string, statusInterval time.Duration, routers *bgpfake.Factory) (stop func()) {
	t.Helper()
	return runAgentOpts(t, cfg, agent.Options{NodeName: node, StatusInterval: statusInterval, Routers: routers})
}

// runAgentOpts runs an agent with o, completed with the test defaults.
func runAgentOpts(t *testing.T, cfg *rest.Config, o agent.Options) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	logger := slog.New(slog.NewTextHandler(logWriter{t}, nil))
	done := make(chan error, 1)
	go func() {
		o.Namespace, o.MetricsAddress, o.HealthProbeAddress, o.Logger = namespace, "0", "0", logger
		done <- agent.Run(ctx, cfg, o)
	}()
	stop = sync.OnceFunc(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("agent stopped with %v", err)
		}
	})
	t.Cleanup(stop)
	return stop
}

// speaker waits for the agent to start the test instance's speaker.
func speaker(t *testing.T, routers *bgpfake.Factory) *bgpfake.Router {
	t.Helper()
	wait.Eventually(t, 30*time.Second, "speaker started", func() bool { return routers.Router(instance) != nil })
	return routers.Router(instance)
}

func create(t *testing.T, objs ...client.Object) {
	t.Helper()
	for _, o := range objs {
		if err := server.Client.Create(context.Background(), o); err != nil {
			t.Fatalf("create %T %s: %v", o, o.GetName(), err)
		}
		t.Cleanup(func() { _ = server.Client.Delete(context.Background(), o) })
	}
}

func ensureNamespace(t *testing.T) {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}
	if err := server.Client.Create(context.Background(), ns); err != nil && !strings.Contains(err.Error(), "already exists") {
		t.Fatal(err)
	}
}

func testNode(name string) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
}

// nodeConfig is written directly (the operator is not needed to test the agent).
func nodeConfig(name string, peers ...kbgpv1.BGPNodePeer) *kbgpv1.BGPNodeConfig {
	return &kbgpv1.BGPNodeConfig{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: kbgpv1.BGPNodeConfigSpec{BGPInstances: []kbgpv1.BGPNodeInstance{{
			BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: 65001, RouterID: "10.0.0.1"},
			Peers:               peers,
		}}},
	}
}

func peer(name string, addr netip.Addr, asn int64, ref string) kbgpv1.BGPNodePeer {
	p := kbgpv1.BGPNodePeer{
		BGPPeer:           kbgpv1.BGPPeer{Name: name, PeerAddress: addr.String(), PeerASN: asn},
		PeerLocalEndpoint: kbgpv1.PeerLocalEndpoint{LocalAddress: local.String()},
	}
	if ref != "" {
		p.PeerConfigRef = &kbgpv1.PeerConfigReference{Name: ref}
	}
	return p
}

func peerConfig(name string, port uint16, secret string) *kbgpv1.BGPPeerConfig {
	pc := &kbgpv1.BGPPeerConfig{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: kbgpv1.BGPPeerConfigSpec{
			Transport: &kbgpv1.BGPTransport{PeerPort: ptr.To(int32(port))},
			Timers:    &kbgpv1.BGPTimers{ConnectRetryTimeSeconds: ptr.To[int32](1), HoldTimeSeconds: ptr.To[int32](9), KeepAliveTimeSeconds: ptr.To[int32](3)},
		},
	}
	if secret != "" {
		pc.Spec.AuthSecretRef = ptr.To(secret)
	}
	return pc
}

func getStatus(t *testing.T, name string) kbgpv1.BGPNodeConfigStatus {
	t.Helper()
	nc := &kbgpv1.BGPNodeConfig{}
	if err := server.Client.Get(context.Background(), types.NamespacedName{Name: name}, nc); err != nil {
		t.Fatal(err)
	}
	return nc.Status
}

func peerState(st kbgpv1.BGPNodeConfigStatus, name string) kbgpv1.PeeringState {
	for _, inst := range st.BGPInstances {
		for _, p := range inst.Peers {
			if p.Name == name {
				return p.PeeringState
			}
		}
	}
	return ""
}

var (
	addrA = netip.MustParseAddr("10.10.0.1")
	addrB = netip.MustParseAddr("10.10.0.2")
	addrC = netip.MustParseAddr("10.10.0.3")
)

func TestAgentPeersAndReportsState(t *testing.T) {
	ensureNamespace(t)
	const node = "agent-node-1"
	create(t, testNode(node),
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "auth-a", Namespace: namespace}, Data: map[string][]byte{"password": []byte("s3cret")}},
		peerConfig("pc-a", 1179, "auth-a"), peerConfig("pc-b", 179, ""), peerConfig("pc-c", 179, "missing-secret"),
		nodeConfig(node, peer("tor-a", addrA, 65010, "pc-a"), peer("tor-b", addrB, 65020, "pc-b")))
	routers, stop := startAgent(t, server.Config, node)

	r := speaker(t, routers)
	if r.Global.RouterID != netip.MustParseAddr("10.0.0.1") || r.Global.ListenPort != 0 {
		t.Fatalf("speaker started with %+v, want router ID 10.0.0.1 and no listener", r.Global)
	}
	wait.Eventually(t, 30*time.Second, "both peers configured", func() bool {
		_, a := r.Peer(addrA)
		_, b := r.Peer(addrB)
		return a && b
	})
	a, _ := r.Peer(addrA)
	if a.Password != "s3cret" || a.Port != 1179 || a.ASN != 65010 || a.Timers.HoldTime != 9*time.Second || a.LocalAddress != local {
		t.Fatalf("peer tor-a runs with %+v, want the MD5 key from its Secret, port 1179, hold 9s", a)
	}
	var st kbgpv1.BGPNodeConfigStatus
	wait.Eventually(t, 30*time.Second, "status shows both peers Established", func() bool {
		st = getStatus(t, node)
		return peerState(st, "tor-a") == kbgpv1.PeeringStateEstablished && peerState(st, "tor-b") == kbgpv1.PeeringStateEstablished
	})
	if !meta.IsStatusConditionTrue(st.Conditions, "Ready") || st.BGPInstances[0].RouterID != "10.0.0.1" {
		t.Fatalf("status = %+v, want Ready with router ID 10.0.0.1", st)
	}
	if tm := st.BGPInstances[0].Peers[0].Timers; tm == nil || tm.AppliedHoldTimeSeconds != 9 || tm.AppliedKeepaliveSeconds != 3 {
		t.Fatalf("applied timers = %+v, want hold 9 keepalive 3", tm)
	}

	// Unrelated edits: Node labels, another peer config, an advertisement, a Secret
	// nobody uses. None may reset a session.
	ctx := context.Background()
	n := &corev1.Node{}
	if err := server.Client.Get(ctx, types.NamespacedName{Name: node}, n); err != nil {
		t.Fatal(err)
	}
	n.Labels = map[string]string{"edited": "yes"}
	if err := server.Client.Update(ctx, n); err != nil {
		t.Fatal(err)
	}
	create(t, peerConfig("pc-unrelated", 1, ""),
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "unused", Namespace: namespace}, Data: map[string][]byte{"password": []byte("x")}},
		&kbgpv1.BGPAdvertisement{ObjectMeta: metav1.ObjectMeta{Name: "ad-" + node}, Spec: kbgpv1.BGPAdvertisementSpec{
			Advertisements: []kbgpv1.Advertisement{{AdvertisementType: kbgpv1.AdvertisementPodCIDR}}}})
	time.Sleep(2 * time.Second)
	if r.Sessions(addrA) != 1 || r.Sessions(addrB) != 1 || routers.Started(instance) != 1 {
		t.Fatalf("unrelated edits reset sessions: sessions a=%d b=%d, speakers started %d", r.Sessions(addrA), r.Sessions(addrB), routers.Started(instance))
	}

	// A peer whose Secret is missing is not started and the status says why; the
	// other peers stay up.
	nc := &kbgpv1.BGPNodeConfig{}
	if err := server.Client.Get(ctx, types.NamespacedName{Name: node}, nc); err != nil {
		t.Fatal(err)
	}
	nc.Spec.BGPInstances[0].Peers = append(nc.Spec.BGPInstances[0].Peers, peer("tor-c", addrC, 65030, "pc-c"),
		peer("tor-d", netip.MustParseAddr("10.10.0.4"), 65040, "pc-missing"))
	if err := server.Client.Update(ctx, nc); err != nil {
		t.Fatal(err)
	}
	wait.Eventually(t, 30*time.Second, "missing Secret and peer config reported", func() bool {
		st = getStatus(t, node)
		found := 0
		for _, f := range st.FailedResources {
			if (f.Kind == "Secret" && f.Name == "missing-secret") || (f.Kind == "BGPPeerConfig" && f.Name == "pc-missing" && f.Message == "not found") {
				found++
			}
		}
		return found == 2 && st.ObservedGeneration == nc.Generation && meta.IsStatusConditionTrue(st.Conditions, "Degraded")
	})
	if peerState(st, "tor-d") != kbgpv1.PeeringStateIdle {
		t.Fatalf("peer with a missing peer config is %q, want Idle (not started)", peerState(st, "tor-d"))
	}
	if peerState(st, "tor-c") != kbgpv1.PeeringStateIdle {
		t.Fatalf("peer with a missing Secret is %q, want Idle (not started)", peerState(st, "tor-c"))
	}
	if _, started := r.Peer(addrC); started {
		t.Fatal("peer with a missing Secret was started")
	}
	if r.Sessions(addrA) != 1 || r.Sessions(addrB) != 1 {
		t.Fatalf("adding a broken peer reset the others: sessions a=%d b=%d", r.Sessions(addrA), r.Sessions(addrB))
	}

	// The agent stops its speakers with graceful restart, so peers keep its routes.
	stop()
	if stopped, graceful := r.Stopped(); !stopped || !graceful {
		t.Fatalf("on exit the speaker was stopped=%v graceful=%v, want a graceful-restart stop", stopped, graceful)
	}
	// No peer has graceful restart: nothing keeps the node's routes, status says so.
	if c := meta.FindStatusCondition(getStatus(t, node).Conditions, "Ready"); c == nil || c.Status != metav1.ConditionFalse || c.Reason != "AgentShutdown" {
		t.Fatalf("Ready after the agent stopped = %+v, want False/AgentShutdown", c)
	}
}

// TestGeneratedRBACSuffices runs the agent as a user holding only the generated roles:
// it reads its node config, peer config and Secret, and writes its status; its token
// lists every Node and the ServiceCIDRs, whose addresses it reserves.
func TestGeneratedRBACSuffices(t *testing.T) {
	ensureNamespace(t)
	ctx := context.Background()
	role := filepath.Join(server.RepoRoot, "config", "rbac", "agent", "role.yaml")
	if err := server.GrantGeneratedRoles(ctx, "rbac-test-agent", role); err != nil {
		t.Fatal(err)
	}
	cfg, err := server.UserConfig("rbac-test-agent")
	if err != nil {
		t.Fatal(err)
	}
	const node = "agent-rbac"
	create(t, testNode(node),
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "auth-rbac", Namespace: namespace}, Data: map[string][]byte{"password": []byte("rbac")}},
		peerConfig("pc-rbac", 179, "auth-rbac"),
		nodeConfig(node, peer("tor", addrA, 65010, "pc-rbac")))
	user, err := client.New(cfg, client.Options{Scheme: server.Client.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	for _, list := range []client.ObjectList{&corev1.NodeList{}, &networkingv1.ServiceCIDRList{}} {
		if err := user.List(ctx, list); err != nil {
			t.Errorf("the generated roles do not list %T: %v", list, err)
		}
	}
	routers, _ := startAgent(t, cfg, node)
	wait.Eventually(t, 30*time.Second, "status written by the agent with generated RBAC", func() bool {
		return peerState(getStatus(t, node), "tor") == kbgpv1.PeeringStateEstablished
	})
	if p, _ := speaker(t, routers).Peer(addrA); p.Password != "rbac" {
		t.Fatal("the agent did not read the peer's Secret with the generated Role")
	}
	wait.Eventually(t, 30*time.Second, "the agent's Lease renewed with the generated Role", func() bool {
		l := &coordinationv1.Lease{}
		err := server.Client.Get(ctx, types.NamespacedName{Namespace: namespace, Name: contract.AgentLeaseName(node)}, l)
		return err == nil && l.Spec.RenewTime != nil && *l.Spec.HolderIdentity == node
	})
	// Events about the cluster-scoped BGPNodeConfig live in default, the one namespace
	// the generated Role grants Events in.
	wait.Eventually(t, 30*time.Second, "the agent's Events recorded with the generated Role", func() bool {
		events := &corev1.EventList{}
		err := server.Client.List(ctx, events, client.InNamespace(metav1.NamespaceDefault))
		return err == nil && slices.ContainsFunc(events.Items, func(e corev1.Event) bool {
			return e.InvolvedObject.Kind == "BGPNodeConfig" && e.InvolvedObject.Name == node
		})
	})
}
