package gobgp

import (
	"context"
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"kbgp.io/kbgp/internal/bgp"
)

// TestOriginatesWhatSomePeerExports walks a speaker through peer and export changes
// and checks after each that its RIB holds exactly the prefixes some peer exports. The
// peers never connect: what they are sent is checked in test/component.
func TestOriginatesWhatSomePeerExports(t *testing.T) {
	ctx := context.Background()
	br, err := Factory{}.NewRouter(ctx, bgp.InstanceKey{LocalASN: 65001}, bgp.Global{ASN: 65001, RouterID: netip.MustParseAddr("10.0.0.1")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = br.Stop(ctx, false) })
	r := br.(*router)
	var (
		a, b       = netip.MustParseAddr("127.0.0.61"), netip.MustParseAddr("127.0.0.62")
		p1, p2, p3 = netip.MustParsePrefix("10.244.1.0/24"), netip.MustParsePrefix("203.0.113.10/32"), netip.MustParsePrefix("2001:db8::/64")
		c1         = bgp.PathAttributes{Communities: []uint32{1}}
	)
	peer := func(addr netip.Addr) bgp.Peer {
		return bgp.Peer{Name: addr.String(), Address: addr, ASN: 65010, Port: 1, Families: []bgp.Family{bgp.FamilyIPv4Unicast, bgp.FamilyIPv6Unicast}}
	}
	steps := []struct {
		name string
		do   func() error
		want []netip.Prefix
	}{
		{"a peer with two prefixes", func() error { return r.AddPeer(ctx, peer(a), []bgp.Path{{Prefix: p1}, {Prefix: p2}}) }, []netip.Prefix{p1, p2}},
		{"another peer sharing one, with a new one", func() error { return r.AddPeer(ctx, peer(b), []bgp.Path{{Prefix: p2, Attributes: c1}, {Prefix: p3}}) }, []netip.Prefix{p1, p2, p3}},
		{"a shared prefix leaves one peer", func() error {
			return r.ApplyExports(ctx, []bgp.ExportChange{{Peer: a, Remove: []netip.Prefix{p2}}})
		}, []netip.Prefix{p1, p2, p3}},
		{"moves and attribute changes", func() error {
			return r.ApplyExports(ctx, []bgp.ExportChange{{Peer: a, Set: []bgp.Path{{Prefix: p2, Attributes: c1}}, Remove: []netip.Prefix{p1}}, {Peer: b, Set: []bgp.Path{{Prefix: p3, Attributes: c1}}}})
		}, []netip.Prefix{p2, p3}},
		{"the last peer exporting a prefix goes", func() error { return r.DeletePeer(ctx, b) }, []netip.Prefix{p2}},
		{"a peer twice in a batch is refused", func() error {
			if err := r.ApplyExports(ctx, []bgp.ExportChange{{Peer: a, Remove: []netip.Prefix{p2}}, {Peer: a}}); err == nil {
				t.Error("a batch naming a peer twice was accepted")
			}
			return nil
		}, []netip.Prefix{p2}},
		{"the last prefix leaves", func() error {
			return r.ApplyExports(ctx, []bgp.ExportChange{{Peer: a, Remove: []netip.Prefix{p2}}})
		}, nil},
	}
	opts := cmp.Options{cmp.Comparer(func(x, y netip.Prefix) bool { return x == y }), cmpopts.EquateEmpty()}
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if diff := cmp.Diff(s.want, LocalRIB(t, r), opts); diff != "" {
			t.Errorf("%s: RIB (-want +got):\n%s", s.name, diff)
		}
		counted, originated := 0, 0
		for _, st := range r.prefixes.All() {
			if st.refs > 0 {
				counted++
			}
			if st.originated {
				originated++
			}
		}
		if r.prefixes.Len() != len(s.want) || counted != len(s.want) || originated != len(s.want) || len(r.resend) != 0 {
			t.Errorf("%s: books hold %d prefixes, %d counted, %d originated, %d to resend; want %d, %d, %d, 0", s.name, r.prefixes.Len(), counted, originated, len(r.resend), len(s.want), len(s.want), len(s.want))
		}
	}
}
