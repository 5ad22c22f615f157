package routes

import (
	"errors"
	"log/slog"
	"maps"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kbgp.io/kbgp/internal/bgp"
)

// fakeKernel is a routing table in memory. foreign are routes kbgp did not install;
// failReplace makes that many installs fail.
type fakeKernel struct {
	mu          sync.Mutex
	routes      map[netip.Prefix][]netip.Addr
	foreign     map[netip.Prefix]bool
	local       []netip.Prefix
	failReplace int
}

func (k *fakeKernel) Replace(p netip.Prefix, via []netip.Addr) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.foreign[p] {
		return errForeignRoute
	}
	if k.failReplace > 0 {
		k.failReplace--
		return errors.New("no buffer space available")
	}
	k.routes[p] = via
	return nil
}

func (k *fakeKernel) Delete(p netip.Prefix) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.routes, p)
	return nil
}

func (k *fakeKernel) List() (map[netip.Prefix][]netip.Addr, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return maps.Clone(k.routes), nil
}

func (k *fakeKernel) LocalAddresses() ([]netip.Prefix, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.local, nil
}

func (k *fakeKernel) table() map[string]string {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := map[string]string{}
	for p, via := range k.routes {
		var hops []string
		for _, v := range via {
			hops = append(hops, v.String())
		}
		out[p.String()] = strings.Join(hops, ",")
	}
	return out
}

var (
	rrA, rrB     = netip.MustParseAddr("10.70.0.1"), netip.MustParseAddr("10.70.0.2")
	node2, node3 = netip.MustParseAddr("10.70.0.12"), netip.MustParseAddr("10.70.0.13")
	clusterPods  = []netip.Prefix{netip.MustParsePrefix("10.244.0.0/16")}
	// nodePods are the Nodes' pod CIDRs; ownPods this node's.
	ownPods  = []netip.Prefix{netip.MustParsePrefix("10.244.1.0/24")}
	nodePods = []netip.Prefix{ownPods[0], netip.MustParsePrefix("10.244.2.0/24"), netip.MustParsePrefix("10.244.3.0/24"), netip.MustParsePrefix("10.244.4.0/24")}
)

// pods is the rule of a peer family with importPodRoutes.
var pods = bgp.Import{PodRoutes: true}

func route(peer netip.Addr, prefix string, via netip.Addr, withdrawn bool) bgp.PeerRoute {
	return bgp.PeerRoute{Peer: peer, Family: bgp.FamilyIPv4Unicast, Prefix: netip.MustParsePrefix(prefix), NextHop: via, Withdrawn: withdrawn}
}

func newFakeKernel(routes map[netip.Prefix][]netip.Addr) *fakeKernel {
	if routes == nil {
		routes = map[netip.Prefix][]netip.Addr{}
	}
	return &fakeKernel{routes: routes, foreign: map[netip.Prefix]bool{}, local: []netip.Prefix{netip.MustParsePrefix("10.70.0.11/24")}}
}

// TestPodRoutes: other nodes' pod CIDRs are installed via their next hop; the node's
// own, a more-specific of another node's, anything outside the pod ranges and a local
// next hop never; a prefix two peers send stays until both withdraw it; a forgotten
// peer's routes leave.
func TestPodRoutes(t *testing.T) {
	k := newFakeKernel(nil)
	p := New(k, &PodNetwork{Ranges: clusterPods}, slog.New(slog.DiscardHandler), nil)
	p.SetNodes(nodePods, ownPods)
	p.Importing(rrA, bgp.FamilyIPv4Unicast, pods)
	p.Importing(rrB, bgp.FamilyIPv4Unicast, pods)
	p.Received([]bgp.PeerRoute{
		route(rrA, "10.244.2.0/24", node2, false),
		route(rrA, "10.244.3.0/24", node3, false),
		route(rrA, "10.244.1.0/24", node2, false),
		route(rrA, "10.244.2.17/32", node3, false),
		route(rrA, "10.244.4.0/24", netip.MustParseAddr("10.70.0.11"), false),
		route(rrA, "0.0.0.0/0", node2, false),
		route(rrA, "172.16.0.0/24", node2, false),
		route(rrB, "10.244.2.0/24", node2, false),
	})
	want := map[string]string{"10.244.2.0/24": "10.70.0.12", "10.244.3.0/24": "10.70.0.13"}
	if diff := cmp.Diff(want, k.table()); diff != "" {
		t.Fatalf("kernel (-want +got):\n%s", diff)
	}
	p.Received([]bgp.PeerRoute{route(rrA, "10.244.2.0/24", netip.Addr{}, true)})
	if diff := cmp.Diff(want, k.table()); diff != "" {
		t.Fatalf("a prefix another peer still sends left (-want +got):\n%s", diff)
	}
	p.Forget(rrB, bgp.FamilyIPv4Unicast)
	delete(want, "10.244.2.0/24")
	if diff := cmp.Diff(want, k.table()); diff != "" {
		t.Fatalf("after the second peer was forgotten (-want +got):\n%s", diff)
	}
	if p.Count() != 1 {
		t.Errorf("count %d, want 1", p.Count())
	}
}

// TestPodRoutesWaitForTheNodes: before the Nodes are known (the node's own pod CIDRs
// among them) nothing is installed, not even the node's own pod CIDR a checkpoint
// restore's peers send; once they are, another node's is.
func TestPodRoutesWaitForTheNodes(t *testing.T) {
	k := newFakeKernel(nil)
	p := New(k, &PodNetwork{}, slog.New(slog.DiscardHandler), nil)
	p.Importing(rrA, bgp.FamilyIPv4Unicast, pods)
	p.Received([]bgp.PeerRoute{route(rrA, "10.244.1.0/24", node2, false), route(rrA, "10.244.2.0/24", node2, false)})
	if len(k.table()) != 0 {
		t.Fatalf("installed before the Nodes were known: %v", k.table())
	}
	p.SetNodes(nodePods[:2], ownPods)
	if diff := cmp.Diff(map[string]string{"10.244.2.0/24": "10.70.0.12"}, k.table()); diff != "" {
		t.Fatalf("after the Nodes were listed (-want +got):\n%s", diff)
	}
	p.SetNodes(ownPods, ownPods)
	if len(k.table()) != 0 {
		t.Fatalf("still installed after its Node left: %v", k.table())
	}
}

// TestPodRoutesKeptUntilTheNodesAreKnown: after a restart with the API server away,
// the routes of the previous run outlive the peers' End-of-RIB until the Nodes are
// listed; then the ones no peer sent, or that are no Node's pod CIDR, go.
func TestPodRoutesKeptUntilTheNodesAreKnown(t *testing.T) {
	k := newFakeKernel(map[netip.Prefix][]netip.Addr{
		netip.MustParsePrefix("10.244.2.0/24"): {node2},
		netip.MustParsePrefix("10.244.3.0/24"): {node3},
	})
	p := New(k, &PodNetwork{Ranges: clusterPods}, slog.New(slog.DiscardHandler), nil)
	p.Importing(rrA, bgp.FamilyIPv4Unicast, pods)
	p.Received([]bgp.PeerRoute{route(rrA, "10.244.2.0/24", node2, false)})
	p.EndOfRIB(rrA, bgp.FamilyIPv4Unicast)
	if got := len(k.table()); got != 2 {
		t.Fatalf("routes of the previous run removed before the Nodes were known: %v", k.table())
	}
	p.SetNodes(nodePods, ownPods)
	if diff := cmp.Diff(map[string]string{"10.244.2.0/24": "10.70.0.12"}, k.table()); diff != "" {
		t.Fatalf("after the Nodes were listed (-want +got):\n%s", diff)
	}
}

// afterRestart is a kernel holding the three pod routes a previous run installed, and
// a new installer that knows the Nodes.
func afterRestart() (*fakeKernel, *Installer) {
	k := newFakeKernel(map[netip.Prefix][]netip.Addr{
		netip.MustParsePrefix("10.244.2.0/24"): {node2},
		netip.MustParsePrefix("10.244.3.0/24"): {node3},
		netip.MustParsePrefix("10.244.4.0/24"): {node3},
	})
	p := New(k, &PodNetwork{Ranges: clusterPods}, slog.New(slog.DiscardHandler), nil)
	p.SetNodes(nodePods, ownPods)
	return k, p
}

// TestPodRoutesAcrossARestart: kbgp's routes in the kernel at start stay while the
// peers come back; after End-of-RIB the ones not sent again are swept, the others kept
// (a route with a new next hop replaced).
func TestPodRoutesAcrossARestart(t *testing.T) {
	k, p := afterRestart()
	p.Importing(rrA, bgp.FamilyIPv4Unicast, pods)
	p.Received([]bgp.PeerRoute{route(rrA, "10.244.2.0/24", node2, false), route(rrA, "10.244.3.0/24", node2, false)})
	if got := len(k.table()); got != 3 {
		t.Fatalf("%d routes before End-of-RIB, want the 3 of the previous run", got)
	}
	p.EndOfRIB(rrA, bgp.FamilyIPv6Unicast)
	if got := len(k.table()); got != 3 {
		t.Fatalf("an IPv6 End-of-RIB swept IPv4 routes: %v", k.table())
	}
	p.EndOfRIB(rrA, bgp.FamilyIPv4Unicast)
	want := map[string]string{"10.244.2.0/24": "10.70.0.12", "10.244.3.0/24": "10.70.0.12"}
	if diff := cmp.Diff(want, k.table()); diff != "" {
		t.Fatalf("after End-of-RIB (-want +got):\n%s", diff)
	}
}

// TestPodRoutesSweepWaitsForEveryPeer: after a restart, a route of the previous run
// that only the slower of two importing peers carries survives the first peer's
// End-of-RIB; it goes only if the second sends End-of-RIB without it.
func TestPodRoutesSweepWaitsForEveryPeer(t *testing.T) {
	k, p := afterRestart()
	p.Importing(rrA, bgp.FamilyIPv4Unicast, pods)
	p.Importing(rrB, bgp.FamilyIPv4Unicast, pods)
	p.Received([]bgp.PeerRoute{route(rrA, "10.244.2.0/24", node2, false)})
	p.EndOfRIB(rrA, bgp.FamilyIPv4Unicast)
	if got := len(k.table()); got != 3 {
		t.Fatalf("the first peer's End-of-RIB swept what the second may carry: %v", k.table())
	}
	p.Received([]bgp.PeerRoute{route(rrB, "10.244.3.0/24", node3, false)})
	p.EndOfRIB(rrB, bgp.FamilyIPv4Unicast)
	want := map[string]string{"10.244.2.0/24": "10.70.0.12", "10.244.3.0/24": "10.70.0.13"}
	if diff := cmp.Diff(want, k.table()); diff != "" {
		t.Fatalf("after both End-of-RIBs (-want +got):\n%s", diff)
	}
}

// TestPodRoutesFailedInstallRetried: an install netlink refuses is tried again, with
// backoff, until it is in the kernel.
func TestPodRoutesFailedInstallRetried(t *testing.T) {
	k := newFakeKernel(nil)
	k.failReplace = 3
	p := New(k, &PodNetwork{Ranges: clusterPods}, slog.New(slog.DiscardHandler), nil)
	p.retryFirst = 5 * time.Millisecond
	p.SetNodes(nodePods, ownPods)
	p.Importing(rrA, bgp.FamilyIPv4Unicast, pods)
	p.Received([]bgp.PeerRoute{route(rrA, "10.244.2.0/24", node2, false)})
	deadline := time.Now().Add(5 * time.Second)
	for p.Count() != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("a failed install was not retried: kernel %v", k.table())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if diff := cmp.Diff(map[string]string{"10.244.2.0/24": "10.70.0.12"}, k.table()); diff != "" {
		t.Fatalf("kernel (-want +got):\n%s", diff)
	}
}

// TestPodRoutesNeverOverAForeignRoute: where the table has a route kbgp did not
// install, the received route is refused, not retried, and that route stays.
func TestPodRoutesNeverOverAForeignRoute(t *testing.T) {
	k := newFakeKernel(nil)
	k.foreign[netip.MustParsePrefix("10.244.2.0/24")] = true
	p := New(k, &PodNetwork{Ranges: clusterPods}, slog.New(slog.DiscardHandler), nil)
	p.retryFirst = time.Millisecond
	p.SetNodes(nodePods, ownPods)
	p.Importing(rrA, bgp.FamilyIPv4Unicast, pods)
	p.Received([]bgp.PeerRoute{route(rrA, "10.244.2.0/24", node2, false), route(rrA, "10.244.3.0/24", node3, false)})
	if diff := cmp.Diff(map[string]string{"10.244.3.0/24": "10.70.0.13"}, k.table()); diff != "" {
		t.Fatalf("kernel (-want +got):\n%s", diff)
	}
	p.mu.Lock()
	failed := len(p.failed)
	p.mu.Unlock()
	if failed != 0 || p.Count() != 1 {
		t.Errorf("%d routes to retry, %d counted installed; want 0 and 1", failed, p.Count())
	}
}

// fabricImport accepts the default route and 10.0.0.0/8 le 24, at most max routes.
func fabricImport(max int) bgp.Import {
	return bgp.Import{Routes: &bgp.RouteImport{AllowDefaultRoute: true, MaxRoutes: max,
		Prefixes: []bgp.PrefixMatch{{Prefix: netip.MustParsePrefix("10.0.0.0/8"), MinLen: 8, MaxLen: 24}}}}
}

// TestImportedRoutesMultipath, without the pod network: the default route two ToRs
// send is one route over both next hops; a ToR whose session goes (its routes
// withdrawn, or the peer forgotten) leaves the other's next hop; a prefix the policy
// refuses never goes in; per-peer counts follow.
func TestImportedRoutesMultipath(t *testing.T) {
	k := newFakeKernel(nil)
	p := New(k, nil, slog.New(slog.DiscardHandler), nil)
	tor1, tor2 := netip.MustParseAddr("fe80::1").WithZone("up1"), netip.MustParseAddr("fe80::2").WithZone("up2")
	v4 := func(peer netip.Addr, prefix string, withdrawn bool) bgp.PeerRoute {
		return bgp.PeerRoute{Peer: peer, Family: bgp.FamilyIPv4Unicast, Prefix: netip.MustParsePrefix(prefix), NextHop: peer, Withdrawn: withdrawn}
	}
	p.Importing(tor1, bgp.FamilyIPv4Unicast, fabricImport(10))
	p.Importing(tor2, bgp.FamilyIPv4Unicast, fabricImport(10))
	p.Received([]bgp.PeerRoute{v4(tor1, "0.0.0.0/0", false), v4(tor1, "172.16.0.0/16", false), v4(tor2, "0.0.0.0/0", false), v4(tor2, "10.9.0.0/16", false)})
	want := map[string]string{"0.0.0.0/0": "fe80::1%up1,fe80::2%up2", "10.9.0.0/16": "fe80::2%up2"}
	if diff := cmp.Diff(want, k.table()); diff != "" {
		t.Fatalf("kernel (-want +got):\n%s", diff)
	}
	wantCounts := map[netip.Addr]PeerCounts{tor1: {Installed: 1, Rejected: 1}, tor2: {Installed: 2}}
	if diff := cmp.Diff(wantCounts, p.Counts(), cmp.Comparer(func(x, y netip.Addr) bool { return x == y })); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
	p.Received([]bgp.PeerRoute{v4(tor2, "0.0.0.0/0", true)})
	want["0.0.0.0/0"] = "fe80::1%up1"
	if diff := cmp.Diff(want, k.table()); diff != "" {
		t.Fatalf("after ToR 2 withdrew the default route (-want +got):\n%s", diff)
	}
	p.Received([]bgp.PeerRoute{v4(tor2, "0.0.0.0/0", false)})
	p.Forget(tor1, bgp.FamilyIPv4Unicast)
	want["0.0.0.0/0"] = "fe80::2%up2"
	if diff := cmp.Diff(want, k.table()); diff != "" {
		t.Fatalf("after ToR 1 was forgotten (-want +got):\n%s", diff)
	}
	// The rule changes on the running session: the default route is refused now.
	p.Importing(tor2, bgp.FamilyIPv4Unicast, bgp.Import{Routes: &bgp.RouteImport{MaxRoutes: 10,
		Prefixes: []bgp.PrefixMatch{{Prefix: netip.MustParsePrefix("10.0.0.0/8"), MinLen: 8, MaxLen: 24}}}})
	if diff := cmp.Diff(map[string]string{"10.9.0.0/16": "fe80::2%up2"}, k.table()); diff != "" {
		t.Fatalf("after allowDefaultRoute was switched off (-want +got):\n%s", diff)
	}
}

// TestImportedRoutesCap: past a peer's cap the lowest prefixes are installed, the
// others counted rejected, whatever the order they came in; a withdrawal below the cap
// lets the next one in.
func TestImportedRoutesCap(t *testing.T) {
	for _, order := range [][]string{{"10.1.0.0/16", "10.2.0.0/16", "10.3.0.0/16"}, {"10.3.0.0/16", "10.2.0.0/16", "10.1.0.0/16"}} {
		k := newFakeKernel(nil)
		p := New(k, nil, slog.New(slog.DiscardHandler), nil)
		p.Importing(rrA, bgp.FamilyIPv4Unicast, fabricImport(2))
		for _, prefix := range order {
			p.Received([]bgp.PeerRoute{route(rrA, prefix, node2, false)})
		}
		want := map[string]string{"10.1.0.0/16": "10.70.0.12", "10.2.0.0/16": "10.70.0.12"}
		if diff := cmp.Diff(want, k.table()); diff != "" {
			t.Fatalf("received in order %v (-want +got):\n%s", order, diff)
		}
		if got := p.Counts()[rrA]; got != (PeerCounts{Installed: 2, Rejected: 1}) {
			t.Errorf("counts %+v, want 2 installed, 1 rejected", got)
		}
		p.Received([]bgp.PeerRoute{route(rrA, "10.1.0.0/16", netip.Addr{}, true)})
		want = map[string]string{"10.2.0.0/16": "10.70.0.12", "10.3.0.0/16": "10.70.0.12"}
		if diff := cmp.Diff(want, k.table()); diff != "" {
			t.Fatalf("after a withdrawal under the cap (-want +got):\n%s", diff)
		}
	}
}

// TestImportedRoutesBesidePodRoutes: with the pod network, a peer family with both
// rules installs a pod route and a policy route; the policy never installs over the
// node's own pod CIDR.
func TestImportedRoutesBesidePodRoutes(t *testing.T) {
	k := newFakeKernel(nil)
	p := New(k, &PodNetwork{Ranges: clusterPods}, slog.New(slog.DiscardHandler), nil)
	p.SetNodes(nodePods, ownPods)
	both := fabricImport(10)
	both.PodRoutes = true
	p.Importing(rrA, bgp.FamilyIPv4Unicast, both)
	p.Received([]bgp.PeerRoute{route(rrA, "10.244.2.0/24", node2, false), route(rrA, "10.244.1.0/24", node2, false), route(rrA, "0.0.0.0/0", node3, false)})
	want := map[string]string{"10.244.2.0/24": "10.70.0.12", "0.0.0.0/0": "10.70.0.13"}
	if diff := cmp.Diff(want, k.table()); diff != "" {
		t.Fatalf("kernel (-want +got):\n%s", diff)
	}
}
