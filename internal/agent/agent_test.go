package agent_test

import (
	"context"
	"log/slog"
	"net/netip"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/agent"
	"kbgp.io/kbgp/internal/bgp/gobgp"
	"kbgp.io/kbgp/internal/bgp/gobgp/gobgptest"
)

const namespace = "kbgp-system"

var local = netip.MustParseAddr("127.0.0.1")

type logWriter struct{ t *testing.T }

func (w logWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// startAgent runs an agent for node in this process until the test ends.
func startAgent(t *testing.T, node string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	logger := slog.New(slog.NewTextHandler(logWriter{t}, nil))
	done := make(chan error, 1)
	go func() {
		done <- agent.Run(ctx, server.Config, agent.Options{
			NodeName: node, Namespace: namespace, MetricsAddress: "0", HealthProbeAddress: "0",
			Routers: gobgp.Factory{Logger: logger}, Logger: logger, StatusInterval: 200 * time.Millisecond,
		})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("agent stopped with %v", err)
		}
	})
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

func peer(name string, r *gobgptest.Peer, asn int64, ref string) kbgpv1.BGPNodePeer {
	p := kbgpv1.BGPNodePeer{
		BGPPeer:           kbgpv1.BGPPeer{Name: name, PeerAddress: r.Addr.String(), PeerASN: asn},
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

func TestAgentPeersAndReportsState(t *testing.T) {
	ensureNamespace(t)
	a := gobgptest.Start(t, netip.MustParseAddr("127.0.0.5"), 65010)
	a.AddNeighbor(t, local, 65001, gobgptest.WithPassword("s3cret"))
	b := gobgptest.Start(t, netip.MustParseAddr("127.0.0.6"), 65020)
	b.AddNeighbor(t, local, 65001)

	const node = "agent-node-1"
	create(t, testNode(node),
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "auth-a", Namespace: namespace}, Data: map[string][]byte{"password": []byte("s3cret")}},
		peerConfig("pc-a", a.Port, "auth-a"), peerConfig("pc-b", b.Port, ""), peerConfig("pc-c", b.Port, "missing-secret"),
		nodeConfig(node, peer("tor-a", a, 65010, "pc-a"), peer("tor-b", b, 65020, "pc-b")))
	startAgent(t, node)

	a.WaitEstablished(t, local, 30*time.Second)
	b.WaitEstablished(t, local, 30*time.Second)
	var st kbgpv1.BGPNodeConfigStatus
	gobgptest.Eventually(t, 30*time.Second, "status shows both peers Established", func() bool {
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
	if a.Drops(local)+b.Drops(local) != 0 {
		t.Fatalf("unrelated edits reset sessions: drops a=%d b=%d", a.Drops(local), b.Drops(local))
	}

	// A peer whose Secret is missing is not started and the status says why; the
	// other peers stay up.
	nc := &kbgpv1.BGPNodeConfig{}
	if err := server.Client.Get(ctx, types.NamespacedName{Name: node}, nc); err != nil {
		t.Fatal(err)
	}
	nc.Spec.BGPInstances[0].Peers = append(nc.Spec.BGPInstances[0].Peers, peer("tor-c", gobgptest.Start(t, netip.MustParseAddr("127.0.0.7"), 65030), 65030, "pc-c"))
	if err := server.Client.Update(ctx, nc); err != nil {
		t.Fatal(err)
	}
	gobgptest.Eventually(t, 30*time.Second, "missing Secret reported", func() bool {
		st = getStatus(t, node)
		for _, f := range st.FailedResources {
			if f.Kind == "Secret" && f.Name == "missing-secret" {
				return st.ObservedGeneration == nc.Generation && meta.IsStatusConditionTrue(st.Conditions, "Degraded")
			}
		}
		return false
	})
	if peerState(st, "tor-c") != kbgpv1.PeeringStateIdle {
		t.Fatalf("peer with a missing Secret is %q, want Idle (not started)", peerState(st, "tor-c"))
	}
	if a.Drops(local)+b.Drops(local) != 0 {
		t.Fatalf("adding a broken peer reset the others: drops a=%d b=%d", a.Drops(local), b.Drops(local))
	}
}
