package e2e

import (
	"context"
	"fmt"
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
	names, addrs, cidrs []string
	nodes               []*netlab.Namespace
	confDirs            []string
	agents              []*agentProcess
}

// startMeshLab creates n nodes with Nodes (InternalIP, pod CIDR), the first labelled
// ones in the mesh, the mesh's peer config, advertisement and cluster config (with
// reflectors, when given), the operator and every node's agent.
func startMeshLab(t *testing.T, n, labelled int, reflectors *kbgpv1.BGPRouteReflectors, gr *kbgpv1.BGPGracefulRestart) *meshLab {
	t.Helper()
	lab := netlab.New(t)
	br := lab.Bridge("seg")
	ctl := lab.Namespace("ctl")
	ml := &meshLab{}
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
	cc := &kbgpv1.BGPClusterConfig{ObjectMeta: metav1.ObjectMeta{Name: meshLabel}, Spec: kbgpv1.BGPClusterConfigSpec{
		NodeSelector: &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{meshLabel: "in"}},
		BGPInstances: []kbgpv1.BGPInstance{{
			BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: 65001, RouterID: "${NODE_IP}", LocalPort: ptr.To[int32](179)},
			Mesh: &kbgpv1.BGPMesh{Enabled: true, PeerConfigRef: &kbgpv1.PeerConfigReference{Name: meshLabel}, RouteReflectors: reflectors},
		}},
	}}
	create(t, pc, ad, cc)
	for i, name := range ml.names {
		labels := map[string]string{}
		if i < labelled {
			labels[meshLabel] = "in"
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
	want := map[string]bool{}
	for _, o := range others {
		want[ml.addrs[o]] = true
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
				if p.MeshRole == role && p.PeeringState == kbgpv1.PeeringStateEstablished && want[p.PeerAddress] && p.EstablishedTime != nil {
					out[p.PeerAddress] = p.EstablishedTime.Time
				}
			}
		}
		return len(out) == len(want) && len(got) == len(want), fmt.Sprintf("node %d's sessions %v, want %v established as %s", i+1, got, others, role)
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
	ml := startMeshLab(t, 5, 4, nil, &kbgpv1.BGPGracefulRestart{Enabled: true, RestartTimeSeconds: ptr.To[int32](120)})
	four := []int{0, 1, 2, 3}
	others := func(set []int, i int) []int {
		var out []int
		for _, o := range set {
			if o != i {
				out = append(out, o)
			}
		}
		return out
	}
	established := map[int]map[string]time.Time{}
	for _, i := range four {
		ml.waitRoutes(t, i, others(four, i)...)
		established[i] = ml.meshSessions(t, i, kbgpv1.MeshRolePeer, others(four, i)...)
	}
	ml.waitRoutes(t, 4)

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
