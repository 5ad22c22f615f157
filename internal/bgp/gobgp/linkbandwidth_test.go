package gobgp

import (
	"context"
	"net/netip"
	"testing"
	"time"

	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/testing/gobgptest"
	"kbgp.io/kbgp/internal/testing/wait"
)

// TestLinkBandwidthReachesThePeer runs a speaker against a real GoBGP router over eBGP:
// the router receives the link-bandwidth extended community, a change of the bandwidth
// reaches it on the same session, and a 4-octet local ASN is sent as AS_TRANS.
func TestLinkBandwidthReachesThePeer(t *testing.T) {
	ctx := context.Background()
	local := netip.MustParseAddr("127.0.0.1")
	up := gobgptest.Start(t, netip.MustParseAddr("127.0.0.37"), 65010)
	up.AddNeighbor(t, local, 65001)

	rt, err := Factory{}.NewRouter(ctx, bgp.InstanceKey{LocalASN: 65001}, bgp.Global{ASN: 65001, RouterID: netip.MustParseAddr("10.0.0.1")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Stop(ctx, false) })
	prefix := netip.MustParsePrefix("198.51.100.37/32")
	plain := netip.MustParsePrefix("10.244.37.0/24")
	lb := func(asn, bytes uint32) bgp.PathAttributes {
		return bgp.PathAttributes{LinkBandwidth: bgp.LinkBandwidth{ASN: asn, BytesPerSecond: bytes}}
	}
	p := bgp.Peer{Name: "r", Address: up.Addr, ASN: 65010, Port: up.Port, LocalAddress: local, Families: []bgp.Family{bgp.FamilyIPv4Unicast}}
	if err := rt.AddPeer(ctx, p, []bgp.Path{{Prefix: prefix, Attributes: lb(65001, 375000)}, {Prefix: plain}}); err != nil {
		t.Fatal(err)
	}
	up.WaitEstablished(t, local, 20*time.Second)

	received := func(what string, want bgp.LinkBandwidth) {
		t.Helper()
		wait.Eventually(t, 20*time.Second, what, func() bool {
			for _, r := range up.Routes(t, bgp.FamilyIPv4Unicast) {
				if r.Prefix == prefix && r.Attributes.LinkBandwidth == want {
					return true
				}
			}
			return false
		})
	}
	received("the router received link bandwidth 65001:375000", bgp.LinkBandwidth{ASN: 65001, BytesPerSecond: 375000})
	for _, r := range up.Routes(t, bgp.FamilyIPv4Unicast) {
		if r.Prefix == plain && r.Attributes.LinkBandwidth != (bgp.LinkBandwidth{}) {
			t.Errorf("a prefix without weighted ECMP arrived with link bandwidth %+v", r.Attributes.LinkBandwidth)
		}
	}
	for _, step := range []struct {
		what  string
		attrs bgp.PathAttributes
		want  bgp.LinkBandwidth
	}{
		{"after the change the router has 65001:125000", lb(65001, 125000), bgp.LinkBandwidth{ASN: 65001, BytesPerSecond: 125000}},
		{"a 4-octet ASN arrives as AS_TRANS 23456", lb(4200000000, 250000), bgp.LinkBandwidth{ASN: asTrans, BytesPerSecond: 250000}},
	} {
		if err := rt.ApplyExports(ctx, []bgp.ExportChange{{Peer: up.Addr, Set: []bgp.Path{{Prefix: prefix, Attributes: step.attrs}}}}); err != nil {
			t.Fatal(err)
		}
		received(step.what, step.want)
	}
	if n := up.Drops(local); n != 0 {
		t.Errorf("the session dropped %d times; a change of the link bandwidth must only send an UPDATE", n)
	}
}
