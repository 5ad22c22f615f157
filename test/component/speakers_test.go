// Package component runs kbgp's speaker layer — speaker set plus GoBGP adapter — against
// real GoBGP speakers in this process, under the race detector like every package
// (several GoBGP servers share the process: third_party/gobgp's patch "race-free
// selection options" is what lets them).
package component

import (
	"context"
	"log/slog"
	"net/netip"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/bgp/gobgp"
	"kbgp.io/kbgp/internal/speakers"
	"kbgp.io/kbgp/internal/testing/gobgptest"
	"kbgp.io/kbgp/internal/testing/wait"
)

// These tests run the speaker set with the GoBGP adapter against real GoBGP speakers on
// loopback addresses (127.0.0.0/8 needs no configuration): the local speaker dials from
// 127.0.0.1, the routers listen on 127.0.0.2 and 127.0.0.3.

var (
	local   = netip.MustParseAddr("127.0.0.1")
	routerA = netip.MustParseAddr("127.0.0.2")
	routerB = netip.MustParseAddr("127.0.0.3")
	key     = bgp.InstanceKey{LocalASN: 65001}
	pfxPod  = netip.MustParsePrefix("10.244.1.0/24")
	pfxSvc  = netip.MustParsePrefix("203.0.113.10/32")
	pfxPod6 = netip.MustParsePrefix("2001:db8:244:1::/64")
)

const sessionTimeout = 20 * time.Second

func newTestSpeakers(t *testing.T) *speakers.Set {
	t.Helper()
	set := speakers.New(gobgp.Factory{Logger: slog.New(slog.NewTextHandler(testWriter{t}, nil))}, slog.New(slog.NewTextHandler(testWriter{t}, nil)), nil, 0)
	t.Cleanup(func() { _ = set.Stop(context.Background(), false) })
	return set
}

// startRouter starts a router at addr with ASN asn that accepts the local speaker.
func startRouter(t *testing.T, addr netip.Addr, asn uint32, opts ...gobgptest.NeighborOption) *gobgptest.Router {
	t.Helper()
	r := gobgptest.Start(t, addr, asn)
	r.AddNeighbor(t, local, key.LocalASN, opts...)
	return r
}

// routersAB starts router A (AS 65010) and router B (AS 65020).
func routersAB(t *testing.T) (a, b *gobgptest.Router) {
	t.Helper()
	return startRouter(t, routerA, 65010), startRouter(t, routerB, 65020)
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) { w.t.Log(string(p)); return len(p), nil }

func peerTo(name string, r *gobgptest.Router, asn uint32, export ...bgp.Path) bgp.DesiredPeer {
	set := map[netip.Prefix]bgp.PathAttributes{}
	for _, p := range export {
		set[p.Prefix] = p.Attributes
	}
	return bgp.DesiredPeer{
		Peer: bgp.Peer{
			Name: name, Address: r.Addr, ASN: asn, Port: r.Port, LocalAddress: local,
			Timers:   bgp.Timers{ConnectRetry: time.Second, HoldTime: 9 * time.Second, Keepalive: 3 * time.Second},
			Families: []bgp.Family{bgp.FamilyIPv4Unicast, bgp.FamilyIPv6Unicast},
		},
		Export: set,
	}
}

// plain is a prefix without attributes.
func plain(p netip.Prefix) bgp.Path { return bgp.Path{Prefix: p} }

func desired(routerID string, peers ...bgp.DesiredPeer) bgp.Desired {
	inst := bgp.DesiredInstance{
		Global: bgp.Global{ASN: key.LocalASN, RouterID: netip.MustParseAddr(routerID)},
		Peers:  map[string]bgp.DesiredPeer{},
	}
	for _, p := range peers {
		inst.Peers[p.Name] = p
	}
	return bgp.Desired{Instances: map[bgp.InstanceKey]bgp.DesiredInstance{key: inst}}
}

func apply(t *testing.T, set *speakers.Set, d bgp.Desired) {
	t.Helper()
	if err := set.Apply(context.Background(), d); err != nil {
		t.Fatalf("apply: %v", err)
	}
}

func prefixesOf(routes []bgp.ReceivedRoute) []netip.Prefix {
	out := []netip.Prefix{}
	for _, r := range routes {
		out = append(out, r.Prefix)
	}
	return out
}

func waitRoutes(t *testing.T, r *gobgptest.Router, family bgp.Family, want ...netip.Prefix) {
	t.Helper()
	if want == nil {
		want = []netip.Prefix{}
	}
	var got []netip.Prefix
	wait.Eventually(t, sessionTimeout, "routes at "+r.Addr.String(), func() bool {
		got = prefixesOf(r.Routes(t, family))
		return cmp.Equal(got, want, cmp.Comparer(func(a, b netip.Prefix) bool { return a == b }))
	})
}

func TestEachPeerGetsExactlyItsExportSet(t *testing.T) {
	a, b := routersAB(t)
	set := newTestSpeakers(t)
	podAttrs := bgp.PathAttributes{Communities: []uint32{65001<<16 | 100}, LargeCommunities: []bgp.LargeCommunity{{GlobalAdmin: 65001, LocalData1: 1, LocalData2: 2}}}
	apply(t, set, desired("10.0.0.1", peerTo("a", a, 65010, bgp.Path{Prefix: pfxPod, Attributes: podAttrs}, plain(pfxPod6)), peerTo("b", b, 65020)))
	a.WaitEstablished(t, local, sessionTimeout)
	b.WaitEstablished(t, local, sessionTimeout)
	waitRoutes(t, a, bgp.FamilyIPv4Unicast, pfxPod)
	waitRoutes(t, a, bgp.FamilyIPv6Unicast, pfxPod6)
	waitReceived(t, a, bgp.FamilyIPv4Unicast, route(pfxPod, podAttrs))
	waitRoutes(t, b, bgp.FamilyIPv4Unicast)

	// Export changes: B starts getting the service route, A stops getting the pod CIDR.
	apply(t, set, desired("10.0.0.1", peerTo("a", a, 65010, plain(pfxPod6)), peerTo("b", b, 65020, plain(pfxSvc))))
	waitRoutes(t, a, bgp.FamilyIPv4Unicast)
	waitRoutes(t, b, bgp.FamilyIPv4Unicast, pfxSvc)

	snap, err := set.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if s := snap[key].Peers["b"]; s.Status.State != bgp.StateEstablished || s.Advertised() != 1 || s.Status.HoldTime != 9*time.Second {
		t.Errorf("snapshot of peer b = %+v, want Established, 1 advertised, hold 9s", s)
	}
	if a.Drops(local)+b.Drops(local) != 0 {
		t.Errorf("export changes reset sessions: drops A=%d B=%d", a.Drops(local), b.Drops(local))
	}
}

func TestUnrelatedChangesKeepSessionsAndHoldTimeResets(t *testing.T) {
	a, b := routersAB(t)
	set := newTestSpeakers(t)
	peerA := peerTo("a", a, 65010, plain(pfxPod))
	apply(t, set, desired("10.0.0.1", peerA))
	a.WaitEstablished(t, local, sessionTimeout)

	edits := []struct {
		name string
		d    bgp.Desired
	}{
		{"add another peer", desired("10.0.0.1", peerA, peerTo("b", b, 65020))},
		{"new path for the other peer", desired("10.0.0.1", peerA, peerTo("b", b, 65020, plain(pfxSvc)))},
		{"attributes of a path change", desired("10.0.0.1", peerTo("a", a, 65010, bgp.Path{Prefix: pfxPod, Attributes: bgp.PathAttributes{Communities: []uint32{1}}}), peerTo("b", b, 65020, plain(pfxSvc)))},
		{"connect retry changes", func() bgp.Desired {
			p := peerA
			p.Timers.ConnectRetry = 5 * time.Second
			return desired("10.0.0.1", p)
		}()},
		{"keepalive changes", func() bgp.Desired {
			p := peerA
			p.Timers.Keepalive = 2 * time.Second
			return desired("10.0.0.1", p)
		}()},
		{"remove the other peer", desired("10.0.0.1", peerA)},
	}
	for _, e := range edits {
		apply(t, set, e.d)
	}
	waitRoutes(t, a, bgp.FamilyIPv4Unicast, pfxPod)
	if n := a.Drops(local); n != 0 {
		t.Fatalf("%d unrelated edits dropped the session %d times", len(edits), n)
	}
	if got := a.State(t, local); got != bgp.StateEstablished {
		t.Fatalf("session with A is %s after unrelated edits", got)
	}

	// Negative control: the hold time is negotiated in OPEN, so it needs a new session.
	held := peerA
	held.Timers.HoldTime = 30 * time.Second
	apply(t, set, desired("10.0.0.1", held))
	wait.Eventually(t, sessionTimeout, "hold time change resets the session", func() bool { return a.Drops(local) == 1 })
	a.WaitEstablished(t, local, sessionTimeout)

	// A new router ID needs a new speaker, which resets again.
	apply(t, set, desired("10.0.0.2", held))
	wait.Eventually(t, sessionTimeout, "router ID change resets the session", func() bool { return a.Drops(local) == 2 })
	a.WaitEstablished(t, local, sessionTimeout)
	waitRoutes(t, a, bgp.FamilyIPv4Unicast, pfxPod)
}

func TestMD5(t *testing.T) {
	a := startRouter(t, routerA, 65010, gobgptest.WithPassword("s3cret"))
	b := startRouter(t, routerB, 65020, gobgptest.WithPassword("s3cret"))
	set := newTestSpeakers(t)
	right := peerTo("a", a, 65010)
	right.Password = "s3cret"
	wrong := peerTo("b", b, 65020)
	wrong.Password = "wrong"
	apply(t, set, desired("10.0.0.1", right, wrong))
	a.WaitEstablished(t, local, sessionTimeout)
	time.Sleep(3 * time.Second)
	if got := b.State(t, local); got == bgp.StateEstablished {
		t.Fatalf("session with the wrong MD5 key is %s", got)
	}
}

func TestStopWithGracefulRestartKeepsRoutesAtThePeer(t *testing.T) {
	for _, graceful := range []bool{true, false} {
		t.Run(map[bool]string{true: "graceful", false: "cease"}[graceful], func(t *testing.T) {
			a := startRouter(t, routerA, 65010, gobgptest.WithGracefulRestart(120*time.Second))
			set := newTestSpeakers(t)
			p := peerTo("a", a, 65010, plain(pfxPod))
			p.GracefulRestart = bgp.GracefulRestart{Enabled: true, RestartTime: 120 * time.Second}
			apply(t, set, desired("10.0.0.1", p))
			a.WaitEstablished(t, local, sessionTimeout)
			waitRoutes(t, a, bgp.FamilyIPv4Unicast, pfxPod)
			if err := set.Stop(context.Background(), graceful); err != nil {
				t.Fatal(err)
			}
			wait.Eventually(t, sessionTimeout, "session down", func() bool { return a.Drops(local) == 1 })
			time.Sleep(time.Second)
			routes := a.Routes(t, bgp.FamilyIPv4Unicast)
			if graceful && len(routes) != 1 {
				t.Fatalf("after a graceful stop the peer has %v, want the pod CIDR kept as stale", routes)
			}
			if !graceful && len(routes) != 0 {
				t.Fatalf("after a Cease the peer still has %v", routes)
			}
		})
	}
}
