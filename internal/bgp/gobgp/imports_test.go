package gobgp

import (
	"context"
	"net"
	"net/netip"
	"slices"
	"sync"
	"testing"
	"time"

	api "github.com/osrg/gobgp/v4/api"
	"github.com/osrg/gobgp/v4/pkg/apiutil"
	gobgppacket "github.com/osrg/gobgp/v4/pkg/packet/bgp"

	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/testing/gobgptest"
)

// recordingSink keeps the prefixes a feed reported as sent.
type recordingSink struct {
	mu   sync.Mutex
	sent []netip.Prefix
}

func (s *recordingSink) Received(routes []bgp.PeerRoute) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range routes {
		if !r.Withdrawn {
			s.sent = append(s.sent, r.Prefix)
		}
	}
}
func (s *recordingSink) EndOfRIB(netip.Addr, bgp.Family)              {}
func (s *recordingSink) Importing(netip.Addr, bgp.Family, bgp.Import) {}
func (s *recordingSink) Forget(netip.Addr, bgp.Family)                {}

// TestReplayDropsLoopsAsTheStreamDoes runs the speaker against a real GoBGP peer on
// loopback that sends one clean path and one whose AS_PATH holds the speaker's AS.
// GoBGP's live stream never carries the looped one; importing switched on after both
// arrived replays the Adj-RIB-In, which keeps it (marked rejected): the replay must
// drop it too.
func TestReplayDropsLoopsAsTheStreamDoes(t *testing.T) {
	ctx := context.Background()
	local, remote := netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("127.0.0.31")
	l, err := net.Listen("tcp", netip.AddrPortFrom(remote, 0).String())
	if err != nil {
		t.Fatal(err)
	}
	port := uint16(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	up, err := gobgptest.StartUpstream(ctx, gobgptest.UpstreamConfig{ASN: 65010, RouterID: remote, Address: remote, Port: port})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(up.Stop)
	// The peer sends its own looped path only when told to.
	allowLoop := func(n *api.Peer) { n.Conf.AllowAspathLoopLocal = true }
	if err := up.AddNeighbor(ctx, local, 65001, allowLoop); err != nil {
		t.Fatal(err)
	}
	clean, loop := netip.MustParsePrefix("10.244.2.0/24"), netip.MustParsePrefix("10.244.3.0/24")
	if err := up.Originate(clean, remote); err != nil {
		t.Fatal(err)
	}
	nlri, _ := gobgppacket.NewIPAddrPrefix(loop)
	nh, _ := gobgppacket.NewPathAttributeNextHop(remote)
	asPath := gobgppacket.NewPathAttributeAsPath([]gobgppacket.AsPathParamInterface{gobgppacket.NewAs4PathParam(gobgppacket.BGP_ASPATH_ATTR_TYPE_SEQ, []uint32{65001})})
	if _, err := up.Server().AddPath(apiutil.AddPathRequest{Paths: []*apiutil.Path{{Family: gobgppacket.RF_IPv4_UC, Nlri: nlri,
		Attrs: []gobgppacket.PathAttributeInterface{gobgppacket.NewPathAttributeOrigin(0), nh, asPath}}}}); err != nil {
		t.Fatal(err)
	}

	sink := &recordingSink{}
	rt, err := Factory{Routes: sink}.NewRouter(ctx, bgp.InstanceKey{LocalASN: 65001}, bgp.Global{ASN: 65001, RouterID: netip.MustParseAddr("10.0.0.1")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Stop(ctx, false) })
	r := rt.(*router)
	p := bgp.Peer{Name: "r", Address: remote, ASN: 65010, Port: port, LocalAddress: local, Families: []bgp.Family{bgp.FamilyIPv4Unicast}}
	if err := r.AddPeer(ctx, p, nil); err != nil {
		t.Fatal(err)
	}
	adjIn := func() int {
		n := 0
		_ = r.srv.ListPath(apiutil.ListPathRequest{TableType: api.TableType_TABLE_TYPE_ADJ_IN, Name: remote.String(), Family: gobgppacket.RF_IPv4_UC},
			func(_ gobgppacket.NLRI, ps []*apiutil.Path) { n += len(ps) })
		return n
	}
	for deadline := time.Now().Add(20 * time.Second); adjIn() != 2; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the Adj-RIB-In holds %d paths, want the clean and the looped one", adjIn())
		}
	}
	if err := r.setImports(ctx, remote, map[bgp.Family]bgp.Import{bgp.FamilyIPv4Unicast: {PodRoutes: true}}); err != nil {
		t.Fatal(err)
	}
	sink.mu.Lock()
	defer sink.mu.Unlock()
	if !slices.Equal(sink.sent, []netip.Prefix{clean}) {
		t.Errorf("replayed %v, want only %s (the looped path is not in the live stream either)", sink.sent, clean)
	}
}

// TestLooped: the replay's loop checks are GoBGP's: the speaker's AS anywhere in the
// AS_PATH, or its router ID as ORIGINATOR_ID from an iBGP peer.
func TestLooped(t *testing.T) {
	id := netip.MustParseAddr("10.0.0.1")
	seq := func(asns ...uint32) gobgppacket.PathAttributeInterface {
		return gobgppacket.NewPathAttributeAsPath([]gobgppacket.AsPathParamInterface{gobgppacket.NewAs4PathParam(gobgppacket.BGP_ASPATH_ATTR_TYPE_SEQ, asns)})
	}
	set := gobgppacket.NewPathAttributeAsPath([]gobgppacket.AsPathParamInterface{gobgppacket.NewAs4PathParam(gobgppacket.BGP_ASPATH_ATTR_TYPE_SET, []uint32{65020, 65001})})
	mine, _ := gobgppacket.NewPathAttributeOriginatorId(id)
	other, _ := gobgppacket.NewPathAttributeOriginatorId(netip.MustParseAddr("10.0.0.2"))
	for _, tc := range []struct {
		name    string
		peerASN uint32
		attrs   []gobgppacket.PathAttributeInterface
		want    bool
	}{
		{"clean eBGP", 65010, []gobgppacket.PathAttributeInterface{seq(65010, 65020)}, false},
		{"own AS in the sequence", 65010, []gobgppacket.PathAttributeInterface{seq(65010, 65001)}, true},
		{"own AS in a set", 65010, []gobgppacket.PathAttributeInterface{set}, true},
		{"iBGP, own router ID as originator", 65001, []gobgppacket.PathAttributeInterface{seq(), mine}, true},
		{"iBGP, another originator", 65001, []gobgppacket.PathAttributeInterface{seq(), other}, false},
	} {
		if got := looped(&apiutil.Path{PeerASN: tc.peerASN, Attrs: tc.attrs}, 65001, id); got != tc.want {
			t.Errorf("%s: looped %v, want %v", tc.name, got, tc.want)
		}
	}
}
