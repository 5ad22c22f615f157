package speakers

import (
	"context"
	"io"
	"log/slog"
	"net/netip"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/bgp/bgpfake"
)

// These tests run the speaker set on in-memory speakers: they check which calls a
// desired state turns into. test/component runs it against real GoBGP speakers.

var (
	key    = bgp.InstanceKey{LocalASN: 65001}
	addrA  = netip.MustParseAddr("10.10.0.1")
	addrB  = netip.MustParseAddr("10.10.0.2")
	pfxPod = netip.MustParsePrefix("10.244.1.0/24")
	pfxSvc = netip.MustParsePrefix("203.0.113.10/32")
)

func basePeer(name string, addr netip.Addr) bgp.Peer {
	return bgp.Peer{
		Name: name, Address: addr, ASN: 65010, Port: 179, LocalAddress: netip.MustParseAddr("10.10.0.100"),
		Timers:   bgp.Timers{ConnectRetry: time.Second, HoldTime: 9 * time.Second, Keepalive: 3 * time.Second},
		Families: []bgp.Family{bgp.FamilyIPv4Unicast},
	}
}

func desiredOf(g bgp.Global, peers ...bgp.DesiredPeer) bgp.Desired {
	inst := bgp.DesiredInstance{Global: g, Peers: map[string]bgp.DesiredPeer{}}
	for _, p := range peers {
		inst.Peers[p.Name] = p
	}
	return bgp.Desired{Instances: map[bgp.InstanceKey]bgp.DesiredInstance{key: inst}}
}

func exporting(p bgp.Peer, export ...bgp.Path) bgp.DesiredPeer {
	set := map[netip.Prefix]bgp.PathAttributes{}
	for _, e := range export {
		set[e.Prefix] = e.Attributes
	}
	return bgp.DesiredPeer{Peer: p, Export: set}
}

// path is a prefix with the given standard communities.
func path(pfx netip.Prefix, communities ...uint32) bgp.Path {
	return bgp.Path{Prefix: pfx, Attributes: bgp.PathAttributes{Communities: communities}}
}

// addrsEqual lets cmp compare netip values, whose fields are unexported.
var addrsEqual = cmp.Comparer(func(a, b netip.Addr) bool { return a == b })

var global = bgp.Global{ASN: 65001, RouterID: netip.MustParseAddr("10.0.0.1")}

func mustApply(t *testing.T, set *Set, d bgp.Desired) {
	t.Helper()
	if err := set.Apply(context.Background(), d); err != nil {
		t.Fatalf("apply: %v", err)
	}
}

func newFakeSet() (*Set, *bgpfake.Factory) {
	f := &bgpfake.Factory{}
	return New(f, slog.New(slog.NewTextHandler(io.Discard, nil)), nil, 0), f
}

// TestPeerChanges is the table of docs/session-resets.md: which peer edits need a new
// session and which apply to the running one.
func TestPeerChanges(t *testing.T) {
	for _, tc := range []struct {
		change    string
		edit      func(*bgp.Peer)
		wantReset bool
	}{
		{"connect retry", func(p *bgp.Peer) { p.Timers.ConnectRetry = 5 * time.Second }, false},
		{"keepalive", func(p *bgp.Peer) { p.Timers.Keepalive = 2 * time.Second }, false},
		{"max prefixes", func(p *bgp.Peer) { p.MaxPrefixes = map[bgp.Family]uint32{bgp.FamilyIPv4Unicast: 1000} }, false},
		{"import pod routes", func(p *bgp.Peer) { p.ImportPodRoutes = []bgp.Family{bgp.FamilyIPv4Unicast} }, false},
		{"import policy", func(p *bgp.Peer) {
			p.ImportRoutes = map[bgp.Family]bgp.RouteImport{bgp.FamilyIPv4Unicast: {AllowDefaultRoute: true, MaxRoutes: 10}}
		}, false},
		{"BFD on", func(p *bgp.Peer) {
			p.BFD = bgp.BFD{Enabled: true, MinRx: 300 * time.Millisecond, MinTx: 300 * time.Millisecond, DetectMultiplier: 3}
		}, false},
		{"multihop 0 to 1 (both directly connected)", func(p *bgp.Peer) { p.EBGPMultihopTTL = 1 }, false},
		{"same family listed twice", func(p *bgp.Peer) { p.Families = []bgp.Family{bgp.FamilyIPv4Unicast, bgp.FamilyIPv4Unicast} }, false},
		{"peer ASN", func(p *bgp.Peer) { p.ASN = 65011 }, true},
		{"any external ASN instead", func(p *bgp.Peer) { p.ASN, p.DynamicASN = 0, bgp.ASNExternal }, true},
		{"peer port", func(p *bgp.Peer) { p.Port = 1179 }, true},
		{"local address", func(p *bgp.Peer) { p.LocalAddress = netip.MustParseAddr("10.10.0.101") }, true},
		{"local port", func(p *bgp.Peer) { p.LocalPort = 1790 }, true},
		{"hold time", func(p *bgp.Peer) { p.Timers.HoldTime = 30 * time.Second }, true},
		{"eBGP multihop", func(p *bgp.Peer) { p.EBGPMultihopTTL = 4 }, true},
		{"graceful restart", func(p *bgp.Peer) {
			p.GracefulRestart = bgp.GracefulRestart{Enabled: true, RestartTime: 120 * time.Second}
		}, true},
		{"families", func(p *bgp.Peer) { p.Families = append(p.Families, bgp.FamilyIPv6Unicast) }, true},
		{"ADD-PATH send on", func(p *bgp.Peer) { p.AddPathsSend = map[bgp.Family]uint8{bgp.FamilyIPv4Unicast: 4} }, true},
		{"MD5 password", func(p *bgp.Peer) { p.Password = "new" }, true},
		{"bound device", func(p *bgp.Peer) { p.BindDevice = "red" }, true},
		{"passive", func(p *bgp.Peer) { p.Passive = true }, true},
		{"route reflector client", func(p *bgp.Peer) {
			p.RouteReflectorClient, p.RouteReflectorClusterID = true, netip.MustParseAddr("10.0.0.1")
		}, false},
		{"reflecting for a non-client", func(p *bgp.Peer) { p.RouteReflectorClusterID = netip.MustParseAddr("10.0.0.1") }, false},
	} {
		t.Run(tc.change, func(t *testing.T) {
			set, f := newFakeSet()
			p := basePeer("a", addrA)
			mustApply(t, set, desiredOf(global, exporting(p)))
			tc.edit(&p)
			mustApply(t, set, desiredOf(global, exporting(p)))

			r := f.Router(key)
			wantSessions := 1
			if tc.wantReset {
				wantSessions = 2
			}
			if got := r.Sessions(addrA); got != wantSessions {
				t.Errorf("sessions = %d, want %d", got, wantSessions)
			}
			if got, _ := r.Peer(addrA); !cmp.Equal(got, p, addrsEqual) {
				t.Errorf("peer runs with %+v, want %+v", got, p)
			}
			if f.Started(key) != 1 {
				t.Errorf("a peer change recreated the speaker")
			}
		})
	}
}

func TestGlobalChangesRecreateTheSpeaker(t *testing.T) {
	for _, tc := range []struct {
		change string
		edit   func(*bgp.Global)
	}{
		{"router ID", func(g *bgp.Global) { g.RouterID = netip.MustParseAddr("10.0.0.2") }},
		{"listen port", func(g *bgp.Global) { g.ListenPort = 179 }},
		{"listen addresses", func(g *bgp.Global) { g.ListenAddresses = []netip.Addr{addrA} }},
	} {
		t.Run(tc.change, func(t *testing.T) {
			set, f := newFakeSet()
			d := desiredOf(global, exporting(basePeer("a", addrA), path(pfxPod)))
			mustApply(t, set, d)
			old := f.Router(key)
			g := global
			tc.edit(&g)
			d.Instances[key] = bgp.DesiredInstance{Global: g, Peers: d.Instances[key].Peers}
			mustApply(t, set, d)
			if f.Started(key) != 2 {
				t.Fatalf("speakers started = %d, want 2", f.Started(key))
			}
			if stopped, graceful := old.Stopped(); !stopped || graceful {
				t.Errorf("old speaker stopped=%v graceful=%v, want a Cease", stopped, graceful)
			}
			if got := f.Router(key).Advertised(addrA); len(got) != 1 || got[0].Prefix != pfxPod {
				t.Errorf("new speaker advertises %v to the peer, want the pod CIDR", got)
			}
		})
	}
}

// TestExportAndPathChangesKeepSessions: what a peer is sent, and the attributes of
// what it is sent, change without a new session.
func TestExportAndPathChangesKeepSessions(t *testing.T) {
	set, f := newFakeSet()
	a, b := basePeer("a", addrA), basePeer("b", addrB)
	mustApply(t, set, desiredOf(global, exporting(a, path(pfxPod)), exporting(b)))
	r := f.Router(key)
	if got := r.Advertised(addrB); len(got) != 0 {
		t.Fatalf("peer b selects nothing but is sent %v", got)
	}

	mustApply(t, set, desiredOf(global, exporting(a, path(pfxSvc)), exporting(b, path(pfxPod, 65001<<16|1))))
	assertSent(t, r, addrB, path(pfxPod, 65001<<16|1))
	assertSent(t, r, addrA, path(pfxSvc))

	// Removing a path withdraws it from everyone; removing a peer leaves the other.
	mustApply(t, set, desiredOf(global, exporting(a, path(pfxSvc))))
	assertSent(t, r, addrA, path(pfxSvc))
	if _, ok := r.Peer(addrB); ok {
		t.Error("removed peer b still configured")
	}
	if r.Sessions(addrA) != 1 || f.Started(key) != 1 {
		t.Errorf("export and path changes reset: sessions %d, speakers %d", r.Sessions(addrA), f.Started(key))
	}
}

// TestEachPeerGetsItsOwnAttributes: one originated prefix goes to two peers with
// different attributes; changing one peer's attributes, or taking the prefix away from
// one peer, leaves the other peer's as they were.
func TestEachPeerGetsItsOwnAttributes(t *testing.T) {
	set, f := newFakeSet()
	a, b := basePeer("a", addrA), basePeer("b", addrB)
	const rackA, rackB, extra = 65001<<16 | 101, 65001<<16 | 102, 65001<<16 | 999
	mustApply(t, set, desiredOf(global, exporting(a, path(pfxPod, rackA), path(pfxSvc)), exporting(b, path(pfxPod, rackB))))
	r := f.Router(key)
	assertSent(t, r, addrA, path(pfxPod, rackA), path(pfxSvc))
	assertSent(t, r, addrB, path(pfxPod, rackB))

	// Peer a's attributes for the pod CIDR change: only a sees the change.
	mustApply(t, set, desiredOf(global, exporting(a, path(pfxPod, rackA, extra), path(pfxSvc)), exporting(b, path(pfxPod, rackB))))
	assertSent(t, r, addrA, path(pfxPod, rackA, extra), path(pfxSvc))
	assertSent(t, r, addrB, path(pfxPod, rackB))
	assertBatches(t, r, []bgp.ExportChange{setTo(addrA, path(pfxPod, rackA, extra))})

	// Peer b stops selecting the pod CIDR, which a still gets: withdrawn from b only.
	mustApply(t, set, desiredOf(global, exporting(a, path(pfxPod, rackA, extra), path(pfxSvc)), exporting(b, path(pfxSvc, rackB))))
	assertSent(t, r, addrA, path(pfxPod, rackA, extra), path(pfxSvc))
	assertSent(t, r, addrB, path(pfxSvc, rackB))
	assertBatches(t, r, []bgp.ExportChange{{Peer: addrB, Set: []bgp.Path{path(pfxSvc, rackB)}, Remove: []netip.Prefix{pfxPod}}})

	if r.Sessions(addrA) != 1 || r.Sessions(addrB) != 1 || f.Started(key) != 1 {
		t.Errorf("attribute changes reset: sessions a=%d b=%d, speakers %d", r.Sessions(addrA), r.Sessions(addrB), f.Started(key))
	}
}

func assertSent(t *testing.T, r *bgpfake.Router, addr netip.Addr, want ...bgp.Path) {
	t.Helper()
	if diff := cmp.Diff(want, r.Advertised(addr), cmp.Comparer(func(a, b netip.Prefix) bool { return a == b }), addrsEqual, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("peer %s is sent (-want +got):\n%s", addr, diff)
	}
}

// assertBatches checks that the last Apply changed exports in exactly one batch, want.
func assertBatches(t *testing.T, r *bgpfake.Router, want []bgp.ExportChange) {
	t.Helper()
	if diff := cmp.Diff([][]bgp.ExportChange{want}, r.ExportBatches(), routerOpts); diff != "" {
		t.Errorf("ApplyExports batches (-want +got):\n%s", diff)
	}
}

func TestStopIsGracefulOnlyWhenAsked(t *testing.T) {
	for _, graceful := range []bool{true, false} {
		set, f := newFakeSet()
		mustApply(t, set, desiredOf(global, exporting(basePeer("a", addrA))))
		if err := set.Stop(context.Background(), graceful); err != nil {
			t.Fatal(err)
		}
		if stopped, got := f.Router(key).Stopped(); !stopped || got != graceful {
			t.Errorf("Stop(%v): stopped=%v graceful=%v", graceful, stopped, got)
		}
	}
}
