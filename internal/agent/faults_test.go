package agent_test

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp/bgpfake"
	"kbgp.io/kbgp/internal/testing/wait"
)

// TestAgentRecoversFromSpeakerFailures: a speaker call that fails is reported in status
// and retried until it succeeds — a peer that could not be added at start, and a
// Service event whose export change failed (the agent falls back to a full build).
func TestAgentRecoversFromSpeakerFailures(t *testing.T) {
	const node, ns = "faults-node", "svc-faults"
	ensureNamespace(t)
	if err := server.EnsureNamespace(t.Context(), ns); err != nil {
		t.Fatal(err)
	}
	pc, ad := externalIPSetup("faults", inNamespace(ns), "100.64.40.0/24")
	create(t, testNode(node), pc, ad, nodeConfig(node, peer("tor", addrA, 65010, "faults")))

	routers := &bgpfake.Factory{}
	routers.Faults.FailNext(bgpfake.OpAddPeer, errors.New("speaker refused the peer"))
	startAgentWith(t, server.Config, node, routers)
	r := speaker(t, routers)
	wait.Eventually(t, 30*time.Second, "the failed AddPeer retried: peer tor Established and Ready", func() bool {
		st := getStatus(t, node)
		ready := meta.FindStatusCondition(st.Conditions, kbgpv1.ConditionReady)
		return peerState(st, "tor") == kbgpv1.PeeringStateEstablished && ready != nil && ready.Status == metav1.ConditionTrue
	})

	routers.Faults.FailNext(bgpfake.OpApplyExports, errors.New("speaker dropped the batch"))
	create(t, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"},
		Spec: corev1.ServiceSpec{ExternalIPs: []string{"100.64.40.1"}, Ports: []corev1.ServicePort{{Port: 80}}}})
	wait.Eventually(t, 30*time.Second, "the Service announced after its failed export change", func() bool {
		return containsPrefix(r.Advertised(addrA), hostRoute("100.64.40.1"))
	})
}

// TestManyFailingPeersStillWriteStatus: the errors of many failing peers merge into one
// failedResources entry for the node; its message must stay within the schema's bound,
// or the API server refuses every status write and the node's status freezes.
func TestManyFailingPeersStillWriteStatus(t *testing.T) {
	const node, peers = "many-failing", 24
	ensureNamespace(t)
	var nodePeers []kbgpv1.BGPNodePeer
	routers := &bgpfake.Factory{}
	for i := range peers {
		nodePeers = append(nodePeers, peer(fmt.Sprintf("tor-%02d", i), netip.AddrFrom4([4]byte{10, 20, 0, byte(i + 1)}), 65010, ""))
	}
	// Enough failures that the retries keep failing while the status is written.
	for range peers * 40 {
		routers.Faults.FailNext(bgpfake.OpAddPeer, errors.New("the speaker refused this peer for a reason that takes a while to explain"))
	}
	create(t, testNode(node), nodeConfig(node, nodePeers...))
	startAgentWith(t, server.Config, node, routers)
	wait.Eventually(t, 30*time.Second, "a status naming the failing peers", func() bool {
		for _, f := range getStatus(t, node).FailedResources {
			if f.Kind == "BGPNodeConfig" && strings.Contains(f.Message, "tor-00") {
				return true
			}
		}
		return false
	})
}
