package adjrib

import (
	"context"
	"log/slog"
	"net/netip"
	"net/url"
	"slices"
	"testing"

	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/bgp/bgpfake"
	"kbgp.io/kbgp/internal/speakers"
)

// TestFromTheSpeakers serves a real speaker set (on bgpfake): two instances' peers in
// order with their session states, each peer's export as its Adj-RIB-Out, what a peer
// sent as its Adj-RIB-In, and nothing advertised once its session leaves Established.
func TestFromTheSpeakers(t *testing.T) {
	ctx := context.Background()
	f := &bgpfake.Factory{}
	set := speakers.New(f, slog.New(slog.DiscardHandler), nil, 0)
	def, red := bgp.InstanceKey{LocalASN: 65001}, bgp.InstanceKey{LocalASN: 65001, VRF: "red"}
	peer := func(name, addr string, prefixes ...string) bgp.DesiredPeer {
		p := bgp.DesiredPeer{Peer: bgp.Peer{Name: name, Address: netip.MustParseAddr(addr), ASN: 65002}, Export: map[netip.Prefix]bgp.PathAttributes{}}
		for _, s := range prefixes {
			p.Export[netip.MustParsePrefix(s)] = bgp.PathAttributes{Communities: []uint32{65001<<16 | 7}}
		}
		return p
	}
	g := bgp.Global{ASN: 65001, RouterID: netip.MustParseAddr("10.0.0.1")}
	if err := set.Apply(ctx, bgp.Desired{Instances: map[bgp.InstanceKey]bgp.DesiredInstance{
		def: {Global: g, Peers: map[string]bgp.DesiredPeer{"tor-b": peer("tor-b", "10.0.0.3", "10.244.1.0/24"), "tor-a": peer("tor-a", "10.0.0.2", "198.51.100.1/32", "10.244.1.0/24")}},
		red: {Global: g, Peers: map[string]bgp.DesiredPeer{"pe": peer("pe", "10.0.0.2", "203.0.113.0/24")}},
	}}); err != nil {
		t.Fatal(err)
	}
	f.Router(def).SetReceived(netip.MustParseAddr("10.0.0.2"), []bgp.ReceivedRoute{{Prefix: netip.MustParsePrefix("0.0.0.0/0"), NextHop: netip.MustParseAddr("10.0.0.2")}})
	h := Handler(set, nil, "n1")

	_, got, _ := get(t, h, url.Values{"side": {"advertised"}})
	want := []string{"65001//tor-a 10.244.1.0/24", "65001//tor-a 198.51.100.1/32", "65001//tor-b 10.244.1.0/24", "65001/red/pe 203.0.113.0/24"}
	if !slices.Equal(flat(got), want) || got.Peers[0].Address != "10.0.0.2" || got.Peers[0].State != "Established" ||
		!slices.Equal(got.Peers[0].Routes[0].Communities, []string{"65001:7"}) {
		t.Errorf("advertised %q (%+v), want %q", flat(got), got.Peers, want)
	}
	_, got, _ = get(t, h, url.Values{"side": {"received"}, "peer": {"tor-a"}})
	if want := []string{"65001//tor-a 0.0.0.0/0"}; !slices.Equal(flat(got), want) {
		t.Errorf("received %q, want %q", flat(got), want)
	}
	f.Router(def).SetState(netip.MustParseAddr("10.0.0.3"), bgp.StateActive, "")
	_, got, _ = get(t, h, url.Values{"side": {"advertised"}, "peer": {"tor-b"}})
	if want := []string{"65001//tor-b -"}; !slices.Equal(flat(got), want) || got.Peers[0].State != "Active" {
		t.Errorf("advertised to a peer whose session is down %q in state %q, want %q in Active", flat(got), got.Peers[0].State, want)
	}
}
