package e2e

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/test/e2e/netlab"
)

// The mesh e2e's segment and pod CIDRs: node i is 10.91.0.1i with 10.245.i.0/24.
const meshLabel = "e2e-mesh"

// meshLab is nodes on one segment, every one running a pod-network agent, and the
// operator that renders the mesh; no router anywhere.
type meshLab struct {
	lab                 *netlab.Lab
	names, addrs, cidrs []string
	nodes               []*netlab.Namespace
	confDirs            []string
	agents              []*agentProcess
}

// meshReflectorLabel marks the mesh's route reflectors.
const meshReflectorLabel = "e2e-mesh-rr"

// startMeshLab creates n nodes with Nodes (InternalIP, pod CIDR), the first labelled
// ones in the mesh and the first reflectors ones its route reflectors, the mesh's
// peer config, advertisement and cluster config, the operator and every node's agent.
func startMeshLab(t *testing.T, n, labelled, reflectors int, gr *kbgpv1.BGPGracefulRestart) *meshLab {
	t.Helper()
	lab := netlab.New(t)
	br := lab.Bridge("seg")
	ctl := lab.Namespace("ctl")
	ml := &meshLab{lab: lab}
	for i := range n {
		ml.names = append(ml.names, fmt.Sprintf("e2e-mesh-%d-%s", i+1, strings.Trim(lab.Prefix(), "-")))
		ml.addrs = append(ml.addrs, fmt.Sprintf("10.91.0.%d", 11+i))
		ml.cidrs = append(ml.cidrs, fmt.Sprintf("10.245.%d.0/24", i+1))
		ns := lab.Namespace(fmt.Sprintf("node%d", i+1))
		br.Attach(ns, "to-seg", []string{ml.addrs[i] + "/24"})
		ml.nodes = append(ml.nodes, ns)
		ml.confDirs = append(ml.confDirs, t.TempDir())
	}

	ensureNamespace(t)
	sel := &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"advertise": meshLabel}}
	pc := &kbgpv1.BGPPeerConfig{ObjectMeta: metav1.ObjectMeta{Name: meshLabel}, Spec: kbgpv1.BGPPeerConfigSpec{
		Timers:          &kbgpv1.BGPTimers{ConnectRetryTimeSeconds: ptr.To[int32](1), HoldTimeSeconds: ptr.To[int32](9), KeepAliveTimeSeconds: ptr.To[int32](3)},
		GracefulRestart: gr,
		Families:        []kbgpv1.BGPFamily{{AFI: kbgpv1.AFIIPv4, SAFI: kbgpv1.SAFIUnicast, Advertisements: sel, ImportPodRoutes: true}},
	}}
	ad := &kbgpv1.BGPAdvertisement{ObjectMeta: metav1.ObjectMeta{Name: meshLabel, Labels: map[string]string{"advertise": meshLabel}},
		Spec: kbgpv1.BGPAdvertisementSpec{Advertisements: []kbgpv1.Advertisement{{AdvertisementType: kbgpv1.AdvertisementPodCIDR}}}}
	var rr *kbgpv1.BGPRouteReflectors
	if reflectors > 0 {
		rr = &kbgpv1.BGPRouteReflectors{ClusterID: "10.91.0.254",
			NodeSelector: kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{meshReflectorLabel: "yes"}}}
	}
	cc := &kbgpv1.BGPClusterConfig{ObjectMeta: metav1.ObjectMeta{Name: meshLabel}, Spec: kbgpv1.BGPClusterConfigSpec{
		NodeSelector: &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{meshLabel: "in"}},
		BGPInstances: []kbgpv1.BGPInstance{{
			BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: 65001, RouterID: "${NODE_IP}", LocalPort: ptr.To[int32](179)},
			Mesh:                &kbgpv1.BGPMesh{Enabled: true, PeerConfigRef: &kbgpv1.PeerConfigReference{Name: meshLabel}, RouteReflectors: rr},
		}},
	}}
	create(t, pc, ad, cc)
	for i, name := range ml.names {
		labels := map[string]string{}
		if i < labelled {
			labels[meshLabel] = "in"
		}
		if i < reflectors {
			labels[meshReflectorLabel] = "yes"
		}
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}, Spec: corev1.NodeSpec{PodCIDRs: []string{ml.cidrs[i]}}}
		create(t, node)
		node.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: ml.addrs[i]}}
		if err := server.Client.Status().Update(context.Background(), node); err != nil {
			t.Fatal(err)
		}
	}
	startOperatorProcess(t, lab, ctl)
	for i, name := range ml.names {
		ml.agents = append(ml.agents, startPodNetworkAgent(t, lab, ml.nodes[i], name, ml.confDirs[i]))
	}
	return ml
}

// label puts node i in the mesh, or takes it out.
func (ml *meshLab) label(t *testing.T, i int, in bool) {
	t.Helper()
	update(t, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: ml.names[i]}}, func(n *corev1.Node) {
		if in {
			if n.Labels == nil {
				n.Labels = map[string]string{}
			}
			n.Labels[meshLabel] = "in"
		} else {
			delete(n.Labels, meshLabel)
		}
	})
}

// waitRoutes waits until node i's kernel has exactly the pod CIDRs of the nodes
// others, each via that node's address.
func (ml *meshLab) waitRoutes(t *testing.T, i int, others ...int) {
	t.Helper()
	want := map[string]string{}
	for _, o := range others {
		want[ml.cidrs[o]] = ml.addrs[o]
	}
	waitPodRoutes(t, ml.nodes[i], want)
}

// meshSessions waits until node i's status has exactly the mesh peers of the nodes
// others with role, all Established, and returns when each was established.
func (ml *meshLab) meshSessions(t *testing.T, i int, role kbgpv1.BGPMeshRole, others ...int) map[string]time.Time {
	t.Helper()
	roles := map[int]kbgpv1.BGPMeshRole{}
	for _, o := range others {
		roles[o] = role
	}
	return ml.sessionsWithRoles(t, i, roles)
}

// sessionsWithRoles waits until node i's status has exactly the mesh peers of the
// nodes roles names, each with its role and Established, and returns when each was
// established.
func (ml *meshLab) sessionsWithRoles(t *testing.T, i int, roles map[int]kbgpv1.BGPMeshRole) map[string]time.Time {
	t.Helper()
	want := map[string]kbgpv1.BGPMeshRole{}
	for o, role := range roles {
		want[ml.addrs[o]] = role
	}
	var out map[string]time.Time
	netlab.WaitFor(t, sessionTimeout, 300*time.Millisecond, func() (bool, string) {
		nc := &kbgpv1.BGPNodeConfig{}
		if err := server.Client.Get(context.Background(), types.NamespacedName{Name: ml.names[i]}, nc); err != nil {
			return false, err.Error()
		}
		out = map[string]time.Time{}
		var got []string
		for _, inst := range nc.Status.BGPInstances {
			for _, p := range inst.Peers {
				got = append(got, fmt.Sprintf("%s %s %s", p.PeerAddress, p.MeshRole, p.PeeringState))
				if role, ok := want[p.PeerAddress]; ok && p.MeshRole == role && p.PeeringState == kbgpv1.PeeringStateEstablished && p.EstablishedTime != nil {
					out[p.PeerAddress] = p.EstablishedTime.Time
				}
			}
		}
		return len(out) == len(want) && len(got) == len(want), fmt.Sprintf("node %d's sessions %v, want %v established", i+1, got, want)
	})
	return out
}

// sameSessions reports sessions of before that were re-established since.
func sameSessions(t *testing.T, node int, before, after map[string]time.Time) {
	t.Helper()
	for addr, at := range before {
		if now, ok := after[addr]; ok && !now.Equal(at) {
			t.Errorf("node %d's session with %s was reset: established %s, now %s", node+1, addr, at, now)
		}
	}
}

// TestMeshPodNetworkWithoutARouter: four pod-network nodes on one segment, no router,
// a cluster config with the mesh: every node peers with the three others (one
// session a pair) and installs their pod CIDRs via their addresses; a pod on node 1
// reaches a pod on node 4 over TCP. A fifth node labelled into the cluster config
// joins every node's mesh without resetting a session; labelled out, its route leaves
// every node, again without a reset.
func TestMeshPodNetworkWithoutARouter(t *testing.T) {
	ml := startMeshLab(t, 5, 4, 0, &kbgpv1.BGPGracefulRestart{Enabled: true, RestartTimeSeconds: ptr.To[int32](120)})
	four := []int{0, 1, 2, 3}
	others := without
	established := map[int]map[string]time.Time{}
	for _, i := range four {
		ml.waitRoutes(t, i, others(four, i)...)
		established[i] = ml.meshSessions(t, i, kbgpv1.MeshRolePeer, others(four, i)...)
	}
	ml.waitRoutes(t, 4)
	// One TCP connection a pair, dialled by the lower address: node 1 dialled all
	// three, node 4 was dialled by all three.
	ml.bgpConnections(t, 0, 3, 0)
	ml.bgpConnections(t, 3, 0, 3)

	pods := make([]*cniPod, 2)
	for k, i := range []int{0, 3} {
		ml.nodes[i].SetForwarding(true)
		rt := newCNIRuntime(t, ml.nodes[i], filepath.Join(ml.confDirs[i], "10-kbgp.conflist"))
		pods[k] = rt.newPod(fmt.Sprintf("pod%d", i+1))
		rt.add(pods[k])
		podServes(pods[k], fmt.Sprintf("pod%d", i+1), 8080, 0)
	}
	tcpAnswers(t, pods[0].ns, "TCP:"+pods[1].ip4.String()+":8080", "pod4")
	tcpAnswers(t, pods[1].ns, "TCP:"+pods[0].ip4.String()+":8080", "pod1")

	// Node 5 joins.
	five := []int{0, 1, 2, 3, 4}
	ml.label(t, 4, true)
	for _, i := range five {
		ml.waitRoutes(t, i, others(five, i)...)
		now := ml.meshSessions(t, i, kbgpv1.MeshRolePeer, others(five, i)...)
		sameSessions(t, i, established[i], now)
	}
	// Node 5 leaves: its route leaves the others.
	ml.label(t, 4, false)
	for _, i := range four {
		ml.waitRoutes(t, i, others(four, i)...)
		now := ml.meshSessions(t, i, kbgpv1.MeshRolePeer, others(four, i)...)
		sameSessions(t, i, established[i], now)
	}
	tcpAnswers(t, pods[0].ns, "TCP:"+pods[1].ip4.String()+":8080", "pod4")
}

// TestMeshRouteReflectors: nodes 1 and 2 reflect for nodes 3 to 5, no router. Each
// client peers with the two reflectors only, the reflectors with each other and every
// client; every node has every other's pod CIDR via that node's address. One
// reflector killed: no node loses a route (the other reflects the same routes, the
// dead one's own is kept stale by graceful restart). Both killed: the clients keep
// every route for the restart time, and lose the reflected ones once it has passed.
func TestMeshRouteReflectors(t *testing.T) {
	const restart = 40
	ml := startMeshLab(t, 5, 5, 2, &kbgpv1.BGPGracefulRestart{Enabled: true, RestartTimeSeconds: ptr.To[int32](restart)})
	all := []int{0, 1, 2, 3, 4}
	clients := []int{2, 3, 4}
	others := func(i int) []int { return without(all, i) }
	for _, i := range clients {
		ml.meshSessions(t, i, kbgpv1.MeshRoleReflector, 0, 1)
	}
	for _, r := range []int{0, 1} {
		roles := map[int]kbgpv1.BGPMeshRole{1 - r: kbgpv1.MeshRolePeer}
		for _, c := range clients {
			roles[c] = kbgpv1.MeshRoleClient
		}
		ml.sessionsWithRoles(t, r, roles)
	}
	for _, i := range all {
		ml.waitRoutes(t, i, others(i)...)
	}

	// Reflector 1 killed: for past the hold time, every client still has every route.
	ml.kill(t, 0)
	ml.routesHold(t, clients, others, 15*time.Second)
	// Back, then both killed: the clients keep every route for the restart time.
	ml.agents[0].relay.Close()
	ml.agents[0] = startPodNetworkAgent(t, ml.lab, ml.nodes[0], ml.names[0], ml.confDirs[0])
	for _, i := range clients {
		ml.meshSessions(t, i, kbgpv1.MeshRoleReflector, 0, 1)
	}
	ml.kill(t, 0)
	ml.kill(t, 1)
	killed := time.Now()
	ml.routesHold(t, clients, others, 25*time.Second)
	// Once it has passed, the routes only the reflectors carried leave.
	for _, i := range clients {
		ml.waitRoutes(t, i)
	}
	if took := time.Since(killed); took < restart*time.Second {
		t.Errorf("the clients dropped the stale routes %s after the reflectors died, within the %d s restart time", took, restart)
	}
}

// without is set without i: the nodes a node of the set meshes with.
func without(set []int, i int) []int {
	var out []int
	for _, o := range set {
		if o != i {
			out = append(out, o)
		}
	}
	return out
}

// routesHold checks, for d, that every node of nodes keeps exactly the pod CIDRs of
// others(node), via their addresses.
func (ml *meshLab) routesHold(t *testing.T, nodes []int, others func(int) []int, d time.Duration) {
	t.Helper()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(300 * time.Millisecond) {
		for _, i := range nodes {
			got, err := podRoutesIn(ml.nodes[i])
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{}
			for _, o := range others(i) {
				want[ml.cidrs[o]] = ml.addrs[o]
			}
			if !maps.Equal(got, want) {
				t.Fatalf("node %d's pod routes %v, want %v", i+1, got, want)
			}
		}
	}
}

func (ml *meshLab) kill(t *testing.T, i int) {
	t.Helper()
	if err := ml.agents[i].proc.Kill(); err != nil {
		t.Fatal(err)
	}
}

// bgpConnections checks node i's established BGP connections: dialled of them to a
// peer's port 179, accepted on its own.
func (ml *meshLab) bgpConnections(t *testing.T, i, dialled, accepted int) {
	t.Helper()
	count := func(filter string) int {
		out := ml.nodes[i].MustExec("ss", "-Htn", "state", "established", filter)
		return len(strings.Fields(strings.TrimSpace(out))) / 4
	}
	if d, a := count("dport = :179"), count("sport = :179"); d != dialled || a != accepted {
		t.Errorf("node %d has %d BGP connections it dialled and %d it accepted, want %d and %d", i+1, d, a, dialled, accepted)
	}
}

// TestMeshReflectorsDownLongLived: with long-lived graceful restart on the mesh's peer
// config (restart time 5 s, long-lived stale time 30 s), both reflectors of nodes 3 to
// 5 killed: the clients keep every route well past the restart time (sampled for 20 s),
// and drop them once the long-lived stale time has run out too, not before. (Without
// it, TestMeshRouteReflectors: the routes leave at the restart time.)
func TestMeshReflectorsDownLongLived(t *testing.T) {
	const restart, longLived = 5, 30
	ml := startMeshLab(t, 5, 5, 2, &kbgpv1.BGPGracefulRestart{Enabled: true,
		RestartTimeSeconds: ptr.To[int32](restart), LongLivedStaleTimeSeconds: ptr.To[int32](longLived)})
	all := []int{0, 1, 2, 3, 4}
	clients := []int{2, 3, 4}
	others := func(i int) []int { return without(all, i) }
	for _, i := range clients {
		ml.meshSessions(t, i, kbgpv1.MeshRoleReflector, 0, 1)
	}
	for _, i := range all {
		ml.waitRoutes(t, i, others(i)...)
	}
	ml.kill(t, 0)
	ml.kill(t, 1)
	killed := time.Now()
	ml.routesHold(t, clients, others, 4*restart*time.Second)
	for _, i := range clients {
		ml.waitRoutes(t, i)
	}
	if took := time.Since(killed); took < (restart+longLived)*time.Second {
		t.Errorf("the clients dropped the stale routes %s after the reflectors died, within the restart time plus the long-lived stale time (%d s)", took, restart+longLived)
	}
}
