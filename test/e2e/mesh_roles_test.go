package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/adjribapi"
	"kbgp.io/kbgp/test/e2e/netlab"
)

// TestMeshRoleChangeKeepsEveryRoute: nodes 1 and 2 reflect for nodes 3 to 5. Node 3 is
// labelled a reflector, then a client again. Throughout each change (sampled every
// 300 ms from the relabelling until every node has the new sessions and roles, and 5 s
// after), every node's kernel has every other node's pod CIDR via that node's address,
// and a pod on node 3 and one on node 4 answer each other's TCP connections. No session
// that exists before and after the change is reset: the reflectors change node 3's
// client flag on the running session.
func TestMeshRoleChangeKeepsEveryRoute(t *testing.T) {
	ml := startMeshLab(t, 5, 5, 2, &kbgpv1.BGPGracefulRestart{Enabled: true, RestartTimeSeconds: ptr.To[int32](120)})
	all := []int{0, 1, 2, 3, 4}
	others := func(i int) []int { return without(all, i) }
	for _, i := range all {
		ml.waitRoutes(t, i, others(i)...)
	}
	before := ml.allSessions(t, roleMap(all, []int{0, 1}))

	pods := make([]*cniPod, 2)
	for k, i := range []int{2, 3} {
		ml.nodes[i].SetForwarding(true)
		rt := newCNIRuntime(t, ml.nodes[i], filepath.Join(ml.confDirs[i], "10-kbgp.conflist"))
		pods[k] = rt.newPod(fmt.Sprintf("pod%d", i+1))
		rt.add(pods[k])
		podServes(pods[k], fmt.Sprintf("pod%d", i+1), 8080, 0)
	}
	tcpAnswers(t, pods[0].ns, "TCP:"+pods[1].ip4.String()+":8080", "pod4")
	tcpAnswers(t, pods[1].ns, "TCP:"+pods[0].ip4.String()+":8080", "pod3")
	tcpOnce := func() error {
		for _, c := range [][3]any{{pods[0], pods[1], "pod4"}, {pods[1], pods[0], "pod3"}} {
			from, to, want := c[0].(*cniPod), c[1].(*cniPod), c[2].(string)
			out, err := from.ns.ExecTimeout(5*time.Second, "socat", "-T2", "-", "TCP:"+to.ip4.String()+":8080,connect-timeout=2")
			if err != nil || out != want+"\n" {
				return fmt.Errorf("TCP from %s to %s: %q %v", from.ns.Short, to.ns.Short, out, err)
			}
		}
		return nil
	}

	for _, step := range []struct {
		name       string
		reflectors []int
	}{
		{"node 3 becomes a reflector", []int{0, 1, 2}},
		{"node 3 becomes a client again", []int{0, 1}},
	} {
		ml.setReflector(t, 2, len(step.reflectors) == 3)
		want := roleMap(all, step.reflectors)
		samples, settled := 0, time.Time{}
		for deadline := time.Now().Add(sessionTimeout); ; time.Sleep(300 * time.Millisecond) {
			for _, i := range all {
				got, err := podRoutesIn(ml.nodes[i])
				if err != nil {
					t.Fatal(err)
				}
				wantRoutes := map[string]string{}
				for _, o := range others(i) {
					wantRoutes[ml.cidrs[o]] = ml.addrs[o]
				}
				if !maps.Equal(got, wantRoutes) {
					t.Fatalf("%s, sample %d: node %d's pod routes %v, want %v", step.name, samples, i+1, got, wantRoutes)
				}
			}
			if samples%3 == 0 {
				if err := tcpOnce(); err != nil {
					t.Fatalf("%s, sample %d: %v", step.name, samples, err)
				}
			}
			samples++
			if settled.IsZero() && ml.sessionsAre(want) {
				settled = time.Now()
			}
			if !settled.IsZero() && time.Since(settled) > 5*time.Second {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: the sessions did not reach the new roles %v within %s", step.name, want, sessionTimeout)
			}
		}
		t.Logf("%s: %d samples of every node's routes, all complete", step.name, samples)
		if len(step.reflectors) == 3 {
			ml.waitReceivedFrom(t, 2, 3, 0, 1)
		}
		after := ml.allSessions(t, want)
		for _, i := range all {
			sameSessions(t, i, before[i], after[i])
		}
	}
}

// waitReceivedFrom waits until node i's agent has node o's pod CIDR from each node of
// from (its Adj-RIB-In, /bgp/routes). Node 3, a reflector, must hold node 4's route
// from the other reflectors as well as from node 4: when it becomes a client again,
// node 4 may close their session before node 3 has its new config, and those copies
// are what node 3 then routes by. The reflectors send them only if they prefer node
// 4's own route to a copy another reflector reflected (RFC 4456, section 9: the
// ORIGINATOR_ID stands for the BGP Identifier, then the shorter CLUSTER_LIST wins;
// GoBGP patches 0021 and 0022, the second putting both attributes on the copies the
// reflectors send each other); a reflector whose best route is another non-client's
// sends it to no non-client.
func (ml *meshLab) waitReceivedFrom(t *testing.T, i, o int, from ...int) {
	t.Helper()
	url := fmt.Sprintf("http://127.0.0.1:9080%s?%s=%s&%s=%s", adjribapi.Path,
		adjribapi.ParamSide, adjribapi.Received, adjribapi.ParamPrefix, ml.cidrs[o])
	netlab.WaitFor(t, sessionTimeout, 300*time.Millisecond, func() (bool, string) {
		out, err := ml.nodes[i].ExecTimeout(10*time.Second, "curl", "-sf", url)
		if err != nil {
			return false, fmt.Sprintf("node %d's received routes: %v", i+1, err)
		}
		var answer adjribapi.Routes
		if err := json.Unmarshal([]byte(out), &answer); err != nil {
			return false, fmt.Sprintf("node %d's received routes: %v: %s", i+1, err, out)
		}
		has := map[string]bool{}
		for _, p := range answer.Peers {
			for _, r := range p.Routes {
				has[p.Address] = has[p.Address] || r.Prefix == ml.cidrs[o]
			}
		}
		for _, f := range from {
			if !has[ml.addrs[f]] {
				return false, fmt.Sprintf("node %d has node %d's %s from %v, not from node %d", i+1, o+1, ml.cidrs[o], has, f+1)
			}
		}
		return true, ""
	})
}

// roleMap is each node's wanted mesh sessions (peer node → role) when reflectors
// reflect for the other nodes of all.
func roleMap(all, reflectors []int) map[int]map[int]kbgpv1.BGPMeshRole {
	isR := map[int]bool{}
	for _, r := range reflectors {
		isR[r] = true
	}
	out := map[int]map[int]kbgpv1.BGPMeshRole{}
	for _, i := range all {
		out[i] = map[int]kbgpv1.BGPMeshRole{}
		for _, o := range all {
			switch {
			case o == i:
			case isR[i] && isR[o]:
				out[i][o] = kbgpv1.MeshRolePeer
			case isR[i]:
				out[i][o] = kbgpv1.MeshRoleClient
			case isR[o]:
				out[i][o] = kbgpv1.MeshRoleReflector
			}
		}
	}
	return out
}

// allSessions waits until every node has the sessions of roles and returns when each
// was established, by node.
func (ml *meshLab) allSessions(t *testing.T, roles map[int]map[int]kbgpv1.BGPMeshRole) map[int]map[string]time.Time {
	t.Helper()
	out := map[int]map[string]time.Time{}
	for i, r := range roles {
		out[i] = ml.sessionsWithRoles(t, i, r)
	}
	return out
}

// sessionsAre reports whether every node's status has exactly the Established mesh
// sessions of roles.
func (ml *meshLab) sessionsAre(roles map[int]map[int]kbgpv1.BGPMeshRole) bool {
	for i, r := range roles {
		nc := &kbgpv1.BGPNodeConfig{}
		if err := server.Client.Get(context.Background(), types.NamespacedName{Name: ml.names[i]}, nc); err != nil {
			return false
		}
		want := map[string]kbgpv1.BGPMeshRole{}
		for o, role := range r {
			want[ml.addrs[o]] = role
		}
		got := map[string]kbgpv1.BGPMeshRole{}
		for _, inst := range nc.Status.BGPInstances {
			for _, p := range inst.Peers {
				if p.PeeringState != kbgpv1.PeeringStateEstablished {
					return false
				}
				got[p.PeerAddress] = p.MeshRole
			}
		}
		if !maps.Equal(got, want) {
			return false
		}
	}
	return true
}

// setReflector labels node i a route reflector, or takes the label off.
func (ml *meshLab) setReflector(t *testing.T, i int, on bool) {
	t.Helper()
	update(t, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: ml.names[i]}}, func(n *corev1.Node) {
		if on {
			n.Labels[meshReflectorLabel] = "yes"
		} else {
			delete(n.Labels, meshReflectorLabel)
		}
	})
}
