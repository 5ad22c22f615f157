package component

import (
	"context"
	"net/netip"
	"testing"

	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/speakers"
	"kbgp.io/kbgp/internal/testing/wait"
)

// TestMaxPrefixesHoldsThePeerDown: a router that sends more routes than its
// maxPrefixes is held down with reason MaxPrefixExceeded while the other peer of the
// speaker stays up; raising the limit lets it back in at once, without a session reset
// of the other peer.
func TestMaxPrefixesHoldsThePeerDown(t *testing.T) {
	a, b := routersAB(t)
	for i := range 20 {
		a.Originate(t, netip.PrefixFrom(netip.AddrFrom4([4]byte{198, 18, byte(i), 0}), 24))
	}
	set := newTestSpeakers(t)
	limited := func(limit uint32) bgp.Desired {
		pa := peerTo("a", a, 65010)
		pa.MaxPrefixes = map[bgp.Family]uint32{bgp.FamilyIPv4Unicast: limit}
		return desired("10.0.0.1", pa, peerTo("b", b, 65020))
	}
	apply(t, set, limited(10))
	b.WaitEstablished(t, local, sessionTimeout)
	var held bgp.PeerStatus
	wait.Eventually(t, sessionTimeout, "peer a held down for maxPrefixes", func() bool {
		held = peerStatus(t, set, "a")
		return held.HeldDown == bgp.HeldDownMaxPrefixes && held.State != bgp.StateEstablished
	})
	t.Logf("held down: %s", held.HeldDownDetail)
	if b.Drops(local) != 0 || peerStatus(t, set, "b").State != bgp.StateEstablished {
		t.Fatalf("the other peer was disturbed: drops %d, state %s", b.Drops(local), peerStatus(t, set, "b").State)
	}

	apply(t, set, limited(100))
	wait.Eventually(t, sessionTimeout, "peer a back once its limit was raised", func() bool {
		st := peerStatus(t, set, "a")
		return st.State == bgp.StateEstablished && st.HeldDown == ""
	})
	if b.Drops(local) != 0 {
		t.Errorf("raising a's limit reset b's session %d times", b.Drops(local))
	}
}

// peerStatus is the speaker set's view of one peer of the test instance.
func peerStatus(t *testing.T, set *speakers.Set, name string) bgp.PeerStatus {
	t.Helper()
	snap, err := set.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return snap[key].Peers[name].Status
}
