package agent_test

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp/bgpfake"
	"kbgp.io/kbgp/internal/operator"
	"kbgp.io/kbgp/internal/testing/wait"
)

const annotationRouterID = "kbgp.io/router-id"

var templateRouterID = "${node.annotations['" + annotationRouterID + "']}"

func nodeWith(name string, annotations map[string]string, addrs ...corev1.NodeAddress) (*corev1.Node, func(t *testing.T)) {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: annotations}}
	// Addresses are status: written after the Node exists.
	setAddresses := func(t *testing.T) {
		t.Helper()
		cur := &corev1.Node{}
		if err := server.Client.Get(context.Background(), types.NamespacedName{Name: name}, cur); err != nil {
			t.Fatal(err)
		}
		cur.Status.Addresses = addrs
		if err := server.Client.Status().Update(context.Background(), cur); err != nil {
			t.Fatal(err)
		}
	}
	return n, setAddresses
}

// update applies mutate to the current version of obj, retrying on conflicts.
func update[T client.Object](t *testing.T, obj T, mutate func(T)) {
	t.Helper()
	wait.Eventually(t, 10*time.Second, "update "+obj.GetName(), func() bool {
		if err := server.Client.Get(context.Background(), client.ObjectKeyFromObject(obj), obj); err != nil {
			t.Fatal(err)
		}
		mutate(obj)
		return server.Client.Update(context.Background(), obj) == nil
	})
}

func withRouterID(nc *kbgpv1.BGPNodeConfig, routerID string) *kbgpv1.BGPNodeConfig {
	nc.Spec.BGPInstances[0].RouterID = routerID
	return nc
}

func instanceStatus(t *testing.T, node string) kbgpv1.BGPNodeInstanceStatus {
	t.Helper()
	st := getStatus(t, node)
	if len(st.BGPInstances) == 0 {
		return kbgpv1.BGPNodeInstanceStatus{}
	}
	return st.BGPInstances[0]
}

// events returns "Reason: message" of every event on the node's BGPNodeConfig.
func events(t *testing.T, node string) []string {
	t.Helper()
	out, err := server.Events(context.Background(), "BGPNodeConfig", node)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func waitEvent(t *testing.T, node, want string) {
	t.Helper()
	wait.Eventually(t, 30*time.Second, "event "+want, func() bool {
		for _, e := range events(t, node) {
			if e == want {
				return true
			}
		}
		return false
	})
}

func waitRouterID(t *testing.T, routers *bgpfake.Factory, node, want string) {
	t.Helper()
	wait.Eventually(t, 30*time.Second, "router ID "+want, func() bool {
		r := routers.Router(instance)
		return r != nil && r.Global.RouterID.String() == want && instanceStatus(t, node).RouterID == want
	})
}

// TestRouterIDLockedAcrossEditsAndRestarts: an annotation template resolves; editing
// the annotation changes nothing (no new speaker, no session reset), not even after a
// restart; a configuration change waits for the restart, with a warning event.
func TestRouterIDLockedAcrossEditsAndRestarts(t *testing.T) {
	ensureNamespace(t)
	const name = "rid-lock"
	node, _ := nodeWith(name, map[string]string{annotationRouterID: "10.20.0.1"})
	create(t, node, peerConfig("pc-rid-lock", 179, ""),
		withRouterID(nodeConfig(name, peer("tor", addrA, 65010, "pc-rid-lock")), templateRouterID))
	routers, stop := startAgent(t, server.Config, name)
	waitRouterID(t, routers, name, "10.20.0.1")
	st := instanceStatus(t, name)
	if st.RouterIDSource != kbgpv1.RouterIDSourceTemplate || st.RouterIDNode != name || st.RouterIDResolutionTime == nil ||
		st.RouterIDResolvedFrom == nil || st.RouterIDResolvedFrom.RouterID != templateRouterID {
		t.Fatalf("router-ID status = %+v", st)
	}
	wait.Eventually(t, 30*time.Second, "RouterIDResolved condition", func() bool {
		c := meta.FindStatusCondition(getStatus(t, name).Conditions, "RouterIDResolved")
		return c != nil && c.Status == metav1.ConditionTrue && c.Reason == "Template"
	})
	waitEvent(t, name, "RouterIDResolved: Router ID resolved to 10.20.0.1 via template from node "+name)
	resolvedAt := st.RouterIDResolutionTime

	// The annotation changes; a peer config edit makes the agent reconcile.
	update(t, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}, func(n *corev1.Node) { n.Annotations[annotationRouterID] = "10.20.0.2" })
	update(t, &kbgpv1.BGPPeerConfig{ObjectMeta: metav1.ObjectMeta{Name: "pc-rid-lock"}}, func(pc *kbgpv1.BGPPeerConfig) {
		pc.Spec.Timers.ConnectRetryTimeSeconds = ptr.To[int32](2)
	})
	r := routers.Router(instance)
	wait.Eventually(t, 30*time.Second, "connect retry applied", func() bool {
		p, _ := r.Peer(addrA)
		return p.Timers.ConnectRetry == 2*time.Second
	})
	if routers.Started(instance) != 1 || r.Sessions(addrA) != 1 || r.Global.RouterID.String() != "10.20.0.1" {
		t.Fatalf("annotation edit: speakers started %d, sessions %d, router ID %s", routers.Started(instance), r.Sessions(addrA), r.Global.RouterID)
	}

	// Restart: the lock in status holds, the new annotation is not read.
	stop()
	routers, stop = startAgent(t, server.Config, name)
	waitRouterID(t, routers, name, "10.20.0.1")
	if got := instanceStatus(t, name).RouterIDResolutionTime; !got.Equal(resolvedAt) {
		t.Fatalf("resolution time moved from %v to %v on restart: the ID was resolved again", resolvedAt, got)
	}

	// A configuration change while running: kept, with a warning, until the restart.
	update(t, &kbgpv1.BGPNodeConfig{ObjectMeta: metav1.ObjectMeta{Name: name}}, func(nc *kbgpv1.BGPNodeConfig) {
		nc.Spec.BGPInstances[0].RouterID = "10.20.0.9"
	})
	waitEvent(t, name, `RouterIDConfigChanged: router ID configuration changed (routerID "`+templateRouterID+
		`" -> "10.20.0.9"); keeping 10.20.0.1, the change takes effect at next restart`)
	if got := routers.Router(instance).Global.RouterID.String(); got != "10.20.0.1" || routers.Started(instance) != 1 {
		t.Fatalf("a running agent moved to router ID %s", got)
	}
	stop()
	routers, _ = startAgent(t, server.Config, name)
	waitRouterID(t, routers, name, "10.20.0.9")
	if src := instanceStatus(t, name).RouterIDSource; src != kbgpv1.RouterIDSourceExplicit {
		t.Fatalf("source after the restart = %s, want explicit", src)
	}
}

// TestIPv6OnlyNodeGetsTheHashID: FNV-1a of "rid-ipv6-only" into 10.255.0.0/16.
func TestIPv6OnlyNodeGetsTheHashID(t *testing.T) {
	ensureNamespace(t)
	const name = "rid-ipv6-only"
	node, setAddresses := nodeWith(name, nil, corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: "2001:db8::5"})
	create(t, node)
	setAddresses(t)
	create(t, withRouterID(nodeConfig(name, peer("tor", addrA, 65010, "")), ""))
	routers, _ := startAgent(t, server.Config, name)
	waitRouterID(t, routers, name, "10.255.185.156")
	if src := instanceStatus(t, name).RouterIDSource; src != kbgpv1.RouterIDSourceHash {
		t.Fatalf("source = %s, want hash-from-node-name", src)
	}
	waitEvent(t, name, "RouterIDFallback: No IPv4 address, using hash-based router ID from pool")
	if n := metricValue(t, "kbgp_router_id_source", "source", "hash-from-node-name"); n < 1 {
		t.Fatalf("kbgp_router_id_source{source=hash-from-node-name} = %v, want at least this node's instance", n)
	}
	if n := metricValue(t, "kbgp_router_id_resolution_total", "result", "success"); n < 1 {
		t.Fatalf("kbgp_router_id_resolution_total{result=success} = %v", n)
	}
}

// metricValue sums the series of a counter or gauge that carry label=value in the
// process's registry, which every agent of this test binary shares.
func metricValue(t *testing.T, name, label, value string) float64 {
	t.Helper()
	families, err := ctrlmetrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == label && l.GetValue() == value {
					sum += m.GetGauge().GetValue() + m.GetCounter().GetValue()
				}
			}
		}
	}
	return sum
}

// TestRouterIDWaitsForNodeAddresses: a Node without addresses yet is retried with
// backoff; the InternalIP written a few seconds later is used, not the hash.
func TestRouterIDWaitsForNodeAddresses(t *testing.T) {
	ensureNamespace(t)
	const name = "rid-late-addresses"
	node, setAddresses := nodeWith(name, nil, corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: "10.40.0.7"})
	create(t, node, withRouterID(nodeConfig(name, peer("tor", addrA, 65010, "")), ""))
	routers, _ := startAgent(t, server.Config, name)
	wait.Eventually(t, 30*time.Second, "status says the agent waits for the Node", func() bool {
		c := meta.FindStatusCondition(getStatus(t, name).Conditions, "RouterIDResolved")
		return c != nil && c.Status == metav1.ConditionFalse && c.Reason == "WaitingForNode"
	})
	if routers.Router(instance) != nil {
		t.Fatal("a speaker started without a router ID")
	}
	setAddresses(t)
	waitRouterID(t, routers, name, "10.40.0.7")
}

// TestRouterIDConflictAcrossAgents: two agents whose nodes carry the same router-ID
// annotation both resolve it; the operator raises RouterIDConflict.
func TestRouterIDConflictAcrossAgents(t *testing.T) {
	ensureNamespace(t)
	mgr, err := operator.NewManager(server.Config, operator.Options{MetricsAddress: "0", HealthProbeAddress: "0", InProcessReplica: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("operator: %v", err)
		}
	})
	cc := &kbgpv1.BGPClusterConfig{
		ObjectMeta: metav1.ObjectMeta{Name: "rid-conflict"},
		Spec: kbgpv1.BGPClusterConfigSpec{
			NodeSelector: &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"rack": "rid-conflict"}},
			BGPInstances: []kbgpv1.BGPInstance{{
				BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: 65001, RouterID: templateRouterID},
				Peers:               []kbgpv1.BGPPeer{{Name: "tor", PeerAddress: addrA.String(), PeerASN: 65010}},
			}},
		},
	}
	create(t, cc)
	for _, name := range []string{"rid-conflict-1", "rid-conflict-2"} {
		n, _ := nodeWith(name, map[string]string{annotationRouterID: "10.50.0.1"})
		n.Labels = map[string]string{"rack": "rid-conflict"}
		create(t, n)
		routers, _ := startAgent(t, server.Config, name)
		waitRouterID(t, routers, name, "10.50.0.1")
	}
	wait.Eventually(t, 30*time.Second, "RouterIDConflict on the cluster config", func() bool {
		got := &kbgpv1.BGPClusterConfig{}
		if err := server.Client.Get(context.Background(), types.NamespacedName{Name: cc.Name}, got); err != nil {
			t.Fatal(err)
		}
		c := meta.FindStatusCondition(got.Status.Conditions, "RouterIDConflict")
		return c != nil && c.Status == metav1.ConditionTrue && strings.Contains(c.Message, "10.50.0.1")
	})
}
