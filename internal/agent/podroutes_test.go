package agent

import (
	"log/slog"
	"maps"
	"net/netip"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"kbgp.io/kbgp/internal/bgp"
)

// fakeKernel is a routing table in memory.
type fakeKernel struct {
	mu     sync.Mutex
	routes map[netip.Prefix]netip.Addr
}

func (k *fakeKernel) Replace(p netip.Prefix, via netip.Addr) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.routes[p] = via
	return nil
}

func (k *fakeKernel) Delete(p netip.Prefix) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.routes, p)
	return nil
}

func (k *fakeKernel) List() (map[netip.Prefix]netip.Addr, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return maps.Clone(k.routes), nil
}

func (k *fakeKernel) table() map[string]string {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := map[string]string{}
	for p, via := range k.routes {
		out[p.String()] = via.String()
	}
	return out
}

var (
	rrA, rrB     = netip.MustParseAddr("10.70.0.1"), netip.MustParseAddr("10.70.0.2")
	node2, node3 = netip.MustParseAddr("10.70.0.12"), netip.MustParseAddr("10.70.0.13")
	clusterPods  = []netip.Prefix{netip.MustParsePrefix("10.244.0.0/16")}
)

func route(peer netip.Addr, prefix string, via netip.Addr, withdrawn bool) bgp.PeerRoute {
	return bgp.PeerRoute{Peer: peer, Family: bgp.FamilyIPv4Unicast, Prefix: netip.MustParsePrefix(prefix), NextHop: via, Withdrawn: withdrawn}
}

// TestPodRoutes: other nodes' pod CIDRs are installed via their next hop, the node's
// own and anything outside the pod ranges never; a prefix two peers send stays until
// both withdraw it; a forgotten peer's routes leave.
func TestPodRoutes(t *testing.T) {
	k := &fakeKernel{routes: map[netip.Prefix]netip.Addr{}}
	p := newPodRoutes(k, clusterPods, slog.New(slog.DiscardHandler), nil)
	p.setOwn([]netip.Prefix{netip.MustParsePrefix("10.244.1.0/24")})
	p.Received([]bgp.PeerRoute{
		route(rrA, "10.244.2.0/24", node2, false),
		route(rrA, "10.244.3.0/24", node3, false),
		route(rrA, "10.244.1.0/24", node2, false),
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

// TestPodRoutesAcrossARestart: kbgp's routes in the kernel at start stay while the
// peers come back; after End-of-RIB the ones not sent again are swept, the others kept
// (a route with a new next hop replaced).
func TestPodRoutesAcrossARestart(t *testing.T) {
	k := &fakeKernel{routes: map[netip.Prefix]netip.Addr{
		netip.MustParsePrefix("10.244.2.0/24"): node2,
		netip.MustParsePrefix("10.244.3.0/24"): node3,
		netip.MustParsePrefix("10.244.4.0/24"): node3,
	}}
	p := newPodRoutes(k, clusterPods, slog.New(slog.DiscardHandler), nil)
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

// TestPodRoutesJudgedAgain: a node's pod CIDR that arrives before its Node is known
// (outside the cluster's pod CIDRs so far) is installed once it is, and leaves when
// the Node does.
func TestPodRoutesJudgedAgain(t *testing.T) {
	k := &fakeKernel{routes: map[netip.Prefix]netip.Addr{}}
	p := newPodRoutes(k, nil, slog.New(slog.DiscardHandler), nil)
	p.setOwn([]netip.Prefix{netip.MustParsePrefix("10.244.1.0/24")})
	p.Received([]bgp.PeerRoute{route(rrA, "10.244.2.0/24", node2, false)})
	if len(k.table()) != 0 {
		t.Fatalf("installed before the cluster's pod CIDRs were known: %v", k.table())
	}
	p.setCluster([]netip.Prefix{netip.MustParsePrefix("10.244.1.0/24"), netip.MustParsePrefix("10.244.2.0/24")})
	if diff := cmp.Diff(map[string]string{"10.244.2.0/24": "10.70.0.12"}, k.table()); diff != "" {
		t.Fatalf("after the Node appeared (-want +got):\n%s", diff)
	}
	p.setCluster([]netip.Prefix{netip.MustParsePrefix("10.244.1.0/24")})
	if len(k.table()) != 0 {
		t.Fatalf("still installed after the Node left: %v", k.table())
	}
}
