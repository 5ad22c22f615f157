package agent_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/testing/wait"
)

// TestAgentVRFPeers runs the same peer address in two VRFs (the loopback stands in for
// a VRF device, as every network namespace has one) and a peer whose VRF device does
// not exist: the first two get speakers of their own, the third is reported in status
// and in a Warning event, and the others run untouched.
func TestAgentVRFPeers(t *testing.T) {
	ensureNamespace(t)
	const node = "agent-vrf-node"
	inDefault := peer("tor-default", addrA, 65010, "")
	inLo := peer("tor-lo", addrA, 65010, "")
	inLo.VRF = "lo"
	ghost := peer("tor-ghost", addrA, 65010, "")
	ghost.VRF = "kbgp-nodev0"
	create(t, testNode(node), nodeConfig(node, inDefault, inLo, ghost))
	routers, _ := startAgent(t, server.Config, node)

	loKey := bgp.InstanceKey{LocalASN: 65001, VRF: "lo"}
	wait.Eventually(t, 30*time.Second, "a speaker per VRF, each with its peer", func() bool {
		def, lo := routers.Router(instance), routers.Router(loKey)
		if def == nil || lo == nil {
			return false
		}
		_, a := def.Peer(addrA)
		p, b := lo.Peer(addrA)
		return a && b && p.BindDevice == "lo"
	})
	if lo := routers.Router(loKey); lo.Global.BindDevice != "lo" || lo.Global.RouterID != routers.Router(instance).Global.RouterID {
		t.Fatalf("VRF speaker started with %+v, want bound to lo with the instance's router ID", lo.Global)
	}
	if r := routers.Router(bgp.InstanceKey{LocalASN: 65001, VRF: "kbgp-nodev0"}); r != nil {
		t.Fatalf("a speaker was started for a VRF device that does not exist: %+v", r.Global)
	}

	var st kbgpv1.BGPNodeConfigStatus
	wait.Eventually(t, 30*time.Second, "the missing VRF reported, the other peers Established", func() bool {
		st = getStatus(t, node)
		return slices.ContainsFunc(st.FailedResources, func(f kbgpv1.FailedResource) bool {
			return f.Kind == "VRF" && f.Name == "kbgp-nodev0"
		}) && peerState(st, "tor-default") == kbgpv1.PeeringStateEstablished && peerState(st, "tor-lo") == kbgpv1.PeeringStateEstablished
	})
	if peerState(st, "tor-ghost") != kbgpv1.PeeringStateIdle || !meta.IsStatusConditionTrue(st.Conditions, "Degraded") {
		t.Fatalf("status = %+v, want tor-ghost Idle and Degraded", st)
	}
	vrfs := map[string]string{}
	for _, p := range st.BGPInstances[0].Peers {
		vrfs[p.Name] = p.VRF
	}
	if vrfs["tor-default"] != "" || vrfs["tor-lo"] != "lo" || vrfs["tor-ghost"] != "kbgp-nodev0" {
		t.Fatalf("status peers by VRF = %v", vrfs)
	}
	wait.Eventually(t, 30*time.Second, "a VRFNotFound event", func() bool {
		events, err := server.Events(context.Background(), "BGPNodeConfig", node)
		if err != nil {
			t.Fatal(err)
		}
		return slices.ContainsFunc(events, func(e string) bool {
			return strings.HasPrefix(e, `VRFNotFound: VRF device "kbgp-nodev0" does not exist on this node; not started: peer tor-ghost of instance 65001`)
		})
	})
	if n := routers.Router(instance).Sessions(addrA) + routers.Router(loKey).Sessions(addrA); n != 2 {
		t.Fatalf("sessions of the two running peers: %d, want 2 (none reset)", n)
	}
}
