package gobgp

import (
	"context"
	"net/netip"
	"reflect"
	"testing"
	"time"

	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/testing/gobgptest"
	"kbgp.io/kbgp/internal/testing/wait"
)

// TestPrependAndMEDReachThePeer runs a speaker against a real GoBGP router over eBGP:
// the router receives the prepended AS path and the MED, and a change of both reaches
// it as an UPDATE on the same session.
func TestPrependAndMEDReachThePeer(t *testing.T) {
	ctx := context.Background()
	local := netip.MustParseAddr("127.0.0.1")
	up := gobgptest.Start(t, netip.MustParseAddr("127.0.0.36"), 65010)
	up.AddNeighbor(t, local, 65001)

	rt, err := Factory{}.NewRouter(ctx, bgp.InstanceKey{LocalASN: 65001}, bgp.Global{ASN: 65001, RouterID: netip.MustParseAddr("10.0.0.1")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Stop(ctx, false) })
	prefix := netip.MustParsePrefix("198.51.100.36/32")
	plain := netip.MustParsePrefix("10.244.36.0/24")
	med := func(v uint32) *uint32 { return &v }
	export := []bgp.Path{
		{Prefix: prefix, Attributes: bgp.PathAttributes{Prepend: bgp.ASPathPrepend{ASN: 65001, Count: 2}, MED: med(30)}},
		{Prefix: plain},
	}
	p := bgp.Peer{Name: "r", Address: up.Addr, ASN: 65010, Port: up.Port, LocalAddress: local, Families: []bgp.Family{bgp.FamilyIPv4Unicast}}
	if err := rt.AddPeer(ctx, p, export); err != nil {
		t.Fatal(err)
	}
	up.WaitEstablished(t, local, 20*time.Second)

	// received waits until the router holds prefix with the AS path and MED.
	received := func(what string, asPath []uint32, med *uint32) {
		t.Helper()
		wait.Eventually(t, 20*time.Second, what, func() bool {
			for _, r := range up.Routes(t, bgp.FamilyIPv4Unicast) {
				if r.Prefix == prefix && reflect.DeepEqual(r.ASPath, asPath) && reflect.DeepEqual(r.Attributes.MED, med) {
					return true
				}
			}
			return false
		})
	}
	received("the router received the AS path 65001 65001 65001 and MED 30", []uint32{65001, 65001, 65001}, med(30))
	for _, r := range up.Routes(t, bgp.FamilyIPv4Unicast) {
		if r.Prefix == plain && (!reflect.DeepEqual(r.ASPath, []uint32{65001}) || r.Attributes.MED != nil) {
			t.Errorf("a prefix without the attributes arrived with AS path %v and MED %v, want 65001 and none", r.ASPath, derefMED(r.Attributes.MED))
		}
	}

	change := []bgp.ExportChange{{Peer: up.Addr, Set: []bgp.Path{
		{Prefix: prefix, Attributes: bgp.PathAttributes{Prepend: bgp.ASPathPrepend{ASN: 4200000000, Count: 1}, MED: med(0)}},
	}}}
	if err := rt.ApplyExports(ctx, change); err != nil {
		t.Fatal(err)
	}
	received("after the change the router has the AS path 4200000000 65001 and MED 0", []uint32{4200000000, 65001}, med(0))
	if n := up.Drops(local); n != 0 {
		t.Errorf("the session dropped %d times; a change of attributes must only send an UPDATE", n)
	}
}

func derefMED(m *uint32) any {
	if m == nil {
		return "none"
	}
	return *m
}
