package agent_test

import (
	"testing"
	"time"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/testing/wait"
	"kbgp.io/kbgp/test/apiserver"
)

// TestStatusWritesAreCoalesced counts the agent's writes at the real API server with
// the production interval (2 s): nothing changing costs nothing, and a peer flapping
// 20 times in 5 s costs a few writes, not 40.
func TestStatusWritesAreCoalesced(t *testing.T) {
	ensureNamespace(t)
	const name = "status-writes"
	create(t, testNode(name), nodeConfig(name, peer("tor", addrA, 65010, "")))
	cfg, writes := apiserver.CountingConfig(server.Config)
	routers, _ := startAgentWithInterval(t, cfg, name, 2*time.Second)
	wait.Eventually(t, 30*time.Second, "peer Established in status", func() bool {
		return peerState(getStatus(t, name), "tor") == kbgpv1.PeeringStateEstablished
	})
	time.Sleep(3 * time.Second) // let the writer settle

	settled := writes.Count()
	time.Sleep(5 * time.Second)
	if n := writes.Count() - settled; n != 0 {
		t.Fatalf("%d status writes while nothing changed: %v", n, writes.Writes()[settled:])
	}

	r := routers.Router(instance)
	for range 20 {
		r.SetState(addrA, bgp.StateActive, "hold timer expired")
		time.Sleep(125 * time.Millisecond)
		r.SetState(addrA, bgp.StateEstablished, "")
		time.Sleep(125 * time.Millisecond)
	}
	time.Sleep(3 * time.Second) // the last coalesced write
	flapWrites := writes.Count() - settled
	t.Logf("20 flaps in 5 s cost %d status writes", flapWrites)
	if flapWrites == 0 || flapWrites > 5 {
		t.Fatalf("20 flaps in 5 s cost %d status writes, want 1 to 5: %v", flapWrites, writes.Writes()[settled:])
	}
	if got := peerState(getStatus(t, name), "tor"); got != kbgpv1.PeeringStateEstablished {
		t.Fatalf("after the flaps the status says %s, want Established", got)
	}
	if v := metricValue(t, "kbgp_session_state", "state", "Established"); v < 1 {
		t.Fatalf("kbgp_session_state{state=Established} = %v, want the peer counted", v)
	}
	waitEvent(t, name, "PeerDown: peer tor (10.10.0.1, AS 65010) of instance 65001 left Established: hold timer expired")
}
