package e2e

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/test/e2e/netlab"
)

// addPathsScenario: a peer config with addPaths on IPv4 negotiates ADD-PATH send with
// FRR, which offers to receive by default, and not with BIRD, which does not; the node
// status says so per peer, FRR still gets the pod CIDR, and going back to the
// topology's peer configs clears the status. Changing addPaths resets the sessions
// (docs/session-resets.md), so the scenario waits for them to come back.
func (tp *peeringTopology) addPathsScenario(t *testing.T) {
	tp.waitAllEstablished(t)
	// withAddPaths is a copy of a topology peer config (FRR's has the MD5 password and
	// graceful restart, BIRD's neither) with ADD-PATH send on IPv4.
	withAddPaths := func(of *kbgpv1.BGPPeerConfig) *kbgpv1.BGPPeerConfig {
		pc := &kbgpv1.BGPPeerConfig{ObjectMeta: metav1.ObjectMeta{Name: of.Name + "-addpaths"}, Spec: *of.Spec.DeepCopy()}
		pc.Spec.Families[0].AddPaths = &kbgpv1.BGPAddPaths{SendMax: 4}
		create(t, pc)
		return pc
	}
	frrConfig, birdConfig := withAddPaths(tp.fastConfig), withAddPaths(tp.plainConfig)
	setPeers(t, tp.nodeConfig, func(peers []kbgpv1.BGPNodePeer) []kbgpv1.BGPNodePeer {
		refer(peers, "frr-v4", frrConfig.Name)
		refer(peers, "bird", birdConfig.Name)
		return peers
	})
	addPaths := func(send kbgpv1.AddPathsState) []kbgpv1.BGPAddPathsStatus {
		if send == "" {
			return nil
		}
		return []kbgpv1.BGPAddPathsStatus{{AFI: kbgpv1.AFIIPv4, SAFI: kbgpv1.SAFIUnicast, Send: send}}
	}
	waitAddPaths := func(want map[string]kbgpv1.AddPathsState) {
		t.Helper()
		netlab.WaitFor(t, sessionTimeout, 500*time.Millisecond, func() (bool, string) {
			got := map[string][]kbgpv1.BGPAddPathsStatus{}
			st := nodeStatus(t, tp.nodeName)
			if len(st.BGPInstances) == 0 {
				return false, "no instance in the node status yet"
			}
			for _, p := range st.BGPInstances[0].Peers {
				if _, ok := want[p.Name]; ok {
					got[p.Name] = p.AddPaths
					if p.PeeringState != kbgpv1.PeeringStateEstablished {
						return false, fmt.Sprintf("%s is %s", p.Name, p.PeeringState)
					}
				}
			}
			for name, send := range want {
				if !reflect.DeepEqual(got[name], addPaths(send)) {
					return false, fmt.Sprintf("addPaths in the status: %+v, want %v", got, want)
				}
			}
			return true, ""
		})
	}
	waitAddPaths(map[string]kbgpv1.AddPathsState{"frr-v4": kbgpv1.AddPathsNegotiated, "bird": kbgpv1.AddPathsNotNegotiated})
	waitFRRRoute(t, tp.frr, podCIDR4, true, "65001:100")

	setPeers(t, tp.nodeConfig, func(peers []kbgpv1.BGPNodePeer) []kbgpv1.BGPNodePeer {
		refer(peers, "frr-v4", tp.fastConfig.Name)
		refer(peers, "bird", tp.plainConfig.Name)
		return peers
	})
	waitAddPaths(map[string]kbgpv1.AddPathsState{"frr-v4": "", "bird": ""})
	tp.waitAllEstablished(t)
}
