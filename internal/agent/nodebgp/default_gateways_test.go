package nodebgp

import (
	"errors"
	"log/slog"
	"net/netip"
	"testing"

	"k8s.io/client-go/tools/record"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

func TestGatewayOf(t *testing.T) {
	a, b, c := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2"), netip.MustParseAddr("10.0.0.3")
	tests := []struct {
		name   string
		routes []defaultRoute
		want   netip.Addr
		err    bool
	}{
		{name: "none", err: true},
		{name: "one", routes: []defaultRoute{{Gateways: []netip.Addr{a}}}, want: a},
		{name: "the lowest metric", routes: []defaultRoute{{Gateways: []netip.Addr{a}, Metric: 200}, {Gateways: []netip.Addr{b}, Metric: 100}}, want: b},
		{name: "ECMP: the lowest address, whatever the order", routes: []defaultRoute{{Gateways: []netip.Addr{c, a, b}}}, want: a},
		{name: "a default route without a gateway does not count", routes: []defaultRoute{{Metric: 1}, {Gateways: []netip.Addr{c}, Metric: 5}}, want: c},
		{name: "only routes without a gateway", routes: []defaultRoute{{}}, err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := gatewayOf(tt.routes)
			if (err != nil) != tt.err || got != tt.want {
				t.Fatalf("gatewayOf = %v, %v; want %v, error %v", got, err, tt.want, tt.err)
			}
		})
	}
}

func gatewayNodeConfig(afis ...kbgpv1.AFI) *kbgpv1.BGPNodeConfig {
	inst := kbgpv1.BGPNodeInstance{BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: 65001}}
	for _, afi := range afis {
		inst.Peers = append(inst.Peers, kbgpv1.BGPNodePeer{BGPPeer: kbgpv1.BGPPeer{Name: "gw-" + string(afi), PeerASN: 65000,
			AutoDiscovery: &kbgpv1.PeerAutoDiscovery{Mode: kbgpv1.AutoDiscoveryDefaultGateway, DefaultGateway: &kbgpv1.DefaultGatewayDiscovery{AddressFamily: afi}}}})
	}
	return &kbgpv1.BGPNodeConfig{Spec: kbgpv1.BGPNodeConfigSpec{BGPInstances: []kbgpv1.BGPNodeInstance{inst}}}
}

// A family without a default gateway is reported once and looked at again; the
// kernel watch asks for a reconcile only when what it finds differs from what the
// last reconcile used.
func TestDefaultGatewaysAndTheKernelWatch(t *testing.T) {
	gw := netip.MustParseAddr("10.0.0.1")
	table := map[kbgpv1.AFI][]defaultRoute{kbgpv1.AFIIPv4: {{Gateways: []netip.Addr{gw}}}}
	list := func(afi kbgpv1.AFI) ([]defaultRoute, error) {
		if afi == "broken" {
			return nil, errors.New("list routes: denied")
		}
		return table[afi], nil
	}
	rec := record.NewFakeRecorder(10)
	d := newDefaultGateways(rec, slog.New(slog.DiscardHandler), list)
	nc := gatewayNodeConfig(kbgpv1.AFIIPv4, kbgpv1.AFIIPv6)
	got := d.check(nc)
	if len(got) != 1 || got[kbgpv1.AFIIPv4] != gw || len(rec.Events) != 1 || d.retryAfter() != deviceRecheckInterval {
		t.Fatalf("found %v with %d events, retry after %s; want ipv4 → %s, 1 event, %s", got, len(rec.Events), d.retryAfter(), gw, deviceRecheckInterval)
	}
	d.check(nc)
	if len(rec.Events) != 1 {
		t.Fatalf("%d events after a second check, want still 1", len(rec.Events))
	}

	asked := 0
	noNeighbours := newInterfaceNeighbors(nil, nil, func(string) ([]neighbour, error) { return nil, nil })
	w := &kernelWatch{neighbours: noNeighbours, gateways: d, changed: func() { asked++ }}
	w.reconciled(nc, nil, discovered{gateways: got})
	w.recheck()
	if asked != 0 {
		t.Fatalf("asked for %d reconciles with nothing changed", asked)
	}
	table[kbgpv1.AFIIPv4] = []defaultRoute{{Gateways: []netip.Addr{netip.MustParseAddr("10.0.0.9")}}}
	w.recheck()
	if asked != 1 {
		t.Fatalf("asked for %d reconciles after the default route moved, want 1", asked)
	}
	w.reconciled(nil, nil, discovered{})
	w.recheck()
	if asked != 1 {
		t.Fatalf("asked for a reconcile with no node config")
	}
}
