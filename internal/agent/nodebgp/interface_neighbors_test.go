package nodebgp

import (
	"errors"
	"log/slog"
	"net/netip"
	"testing"

	"k8s.io/client-go/tools/record"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

func TestRouterOn(t *testing.T) {
	a, b := netip.MustParseAddr("fe80::1"), netip.MustParseAddr("fe80::2")
	global := netip.MustParseAddr("2001:db8::1")
	tests := []struct {
		name   string
		neighs []neighbour
		want   netip.Addr
		err    bool
	}{
		{name: "none", err: true},
		{name: "one router", neighs: []neighbour{{Addr: a, Router: true}}, want: a},
		{name: "the router among hosts", neighs: []neighbour{{Addr: a}, {Addr: b, Router: true}}, want: b},
		{name: "one host, no router", neighs: []neighbour{{Addr: a}}, want: a},
		{name: "two routers", neighs: []neighbour{{Addr: a, Router: true}, {Addr: b, Router: true}}, err: true},
		{name: "two hosts", neighs: []neighbour{{Addr: a}, {Addr: b}}, err: true},
		{name: "a failed router does not count", neighs: []neighbour{{Addr: a, Router: true, Unusable: true}, {Addr: b, Router: true}}, want: b},
		{name: "global addresses do not count", neighs: []neighbour{{Addr: global, Router: true}}, err: true},
		{name: "IPv4 does not count", neighs: []neighbour{{Addr: netip.MustParseAddr("169.254.0.1"), Router: true}}, err: true},
		{name: "the zone is dropped", neighs: []neighbour{{Addr: a.WithZone("eth0"), Router: true}}, want: a},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := routerOn(tt.neighs)
			if (err != nil) != tt.err || got != tt.want {
				t.Fatalf("routerOn = %v, %v; want %v, error %v", got, err, tt.want, tt.err)
			}
		})
	}
}

func ifaceNodeConfig(ifaces ...string) *kbgpv1.BGPNodeConfig {
	nc := &kbgpv1.BGPNodeConfig{}
	inst := kbgpv1.BGPNodeInstance{BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: 65001}}
	for _, i := range ifaces {
		inst.Peers = append(inst.Peers, kbgpv1.BGPNodePeer{BGPPeer: kbgpv1.BGPPeer{Name: "tor-" + i, Interface: i, PeerASN: 65000}})
	}
	nc.Spec.BGPInstances = []kbgpv1.BGPNodeInstance{inst}
	return nc
}

// An interface without a router is reported once, looked at again every
// deviceRecheckInterval, and its neighbour used once one appears.
func TestInterfaceNeighborsReportOnceAndRecheck(t *testing.T) {
	router := netip.MustParseAddr("fe80::a")
	table := map[string][]neighbour{"up1": {{Addr: router, Router: true}}}
	rec := record.NewFakeRecorder(10)
	d := newInterfaceNeighbors(rec, slog.New(slog.DiscardHandler), func(iface string) ([]neighbour, error) {
		if iface == "gone" {
			return nil, errors.New("no such network device on the node")
		}
		return table[iface], nil
	})
	nc := ifaceNodeConfig("up1", "up2", "gone")
	got := d.check(nc)
	if len(got) != 1 || got["up1"] != router {
		t.Fatalf("found %v, want up1 → %s", got, router)
	}
	if len(rec.Events) != 2 || d.retryAfter() != deviceRecheckInterval {
		t.Fatalf("%d events, retry after %s; want 2 and %s", len(rec.Events), d.retryAfter(), deviceRecheckInterval)
	}
	d.check(nc)
	if len(rec.Events) != 2 {
		t.Fatalf("%d events after a second check, want still 2", len(rec.Events))
	}
	table["up2"] = []neighbour{{Addr: router, Router: true}}
	got = d.check(ifaceNodeConfig("up1", "up2"))
	if len(got) != 2 || d.retryAfter() != 0 {
		t.Fatalf("found %v, retry after %s; want both and 0", got, d.retryAfter())
	}
}
