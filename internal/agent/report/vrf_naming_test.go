package report

import (
	"context"
	"log/slog"
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
	dto "github.com/prometheus/client_model/go"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/bgp/bgpfake"
	"kbgp.io/kbgp/internal/metrics"
	"kbgp.io/kbgp/internal/speakers"
	"kbgp.io/kbgp/internal/status"
)

// TestSameAddressInTwoVRFsIsTwoPeersEverywhere runs one peer address in two VRFs and
// follows the two peers through everything keyed by peer: the speakers and what they
// send, the speakers' snapshot, the status entries, the events and the metric series.
// Only one of the two sessions is up, so any place that keys by address alone mixes
// them up and fails.
func TestSameAddressInTwoVRFsIsTwoPeersEverywhere(t *testing.T) {
	addr := netip.MustParseAddr("10.77.0.2")
	redKey, blueKey := bgp.InstanceKey{LocalASN: 65001, VRF: "vrfa"}, bgp.InstanceKey{LocalASN: 65001, VRF: "vrfb"}
	redPfx, bluePfx := netip.MustParsePrefix("10.244.1.0/24"), netip.MustParsePrefix("100.64.20.20/32")
	speaker := func(key bgp.InstanceKey, name string, pfx netip.Prefix) bgp.DesiredInstance {
		p := bgp.Peer{Name: name, Address: addr, ASN: 65077, Port: 179, BindDevice: key.VRF, Families: []bgp.Family{bgp.FamilyIPv4Unicast}}
		return bgp.DesiredInstance{
			Global: bgp.Global{ASN: 65001, RouterID: netip.MustParseAddr("10.99.0.1"), BindDevice: key.VRF},
			Peers:  map[string]bgp.DesiredPeer{name: {Peer: p, Export: map[netip.Prefix]bgp.PathAttributes{pfx: {}}}},
		}
	}
	routers := &bgpfake.Factory{}
	m := speakers.New(routers, slog.New(slog.DiscardHandler), nil, 0)
	ctx := context.Background()
	if err := m.Apply(ctx, bgp.Desired{Instances: map[bgp.InstanceKey]bgp.DesiredInstance{
		redKey: speaker(redKey, "red", redPfx), blueKey: speaker(blueKey, "blue", bluePfx),
	}}); err != nil {
		t.Fatal(err)
	}
	if got := routers.Router(redKey).Advertised(addr); len(got) != 1 || got[0].Prefix != redPfx {
		t.Fatalf("red is sent %v, want only %s", got, redPfx)
	}
	if got := routers.Router(blueKey).Advertised(addr); len(got) != 1 || got[0].Prefix != bluePfx {
		t.Fatalf("blue is sent %v, want only %s", got, bluePfx)
	}
	routers.Router(blueKey).SetState(addr, bgp.StateActive, "hold timer expired")

	snap, err := m.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s := snap[redKey].Peers["red"].Status.State; s != bgp.StateEstablished {
		t.Errorf("snapshot: red is %s, want Established", s)
	}
	if s := snap[blueKey].Peers["blue"].Status.State; s != bgp.StateActive {
		t.Errorf("snapshot: blue is %s, want Active", s)
	}

	nc := &kbgpv1.BGPNodeConfig{ObjectMeta: metav1.ObjectMeta{Name: "worker-1"}, Spec: kbgpv1.BGPNodeConfigSpec{
		BGPInstances: []kbgpv1.BGPNodeInstance{{BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: 65001}, Peers: []kbgpv1.BGPNodePeer{
			{BGPPeer: kbgpv1.BGPPeer{Name: "red", PeerAddress: addr.String(), PeerASN: 65077, VRF: "vrfa"}},
			{BGPPeer: kbgpv1.BGPPeer{Name: "blue", PeerAddress: addr.String(), PeerASN: 65077, VRF: "vrfb"}},
		}}},
	}}
	st := status.Build(status.Input{NodeConfig: nc, Snapshot: snap})
	type row struct{ Name, VRF, State string }
	var rows []row
	for _, p := range st.BGPInstances[0].Peers {
		rows = append(rows, row{p.Name, p.VRF, string(p.PeeringState)})
	}
	if diff := cmp.Diff([]row{{"red", "vrfa", "Established"}, {"blue", "vrfb", "Active"}}, rows); diff != "" {
		t.Errorf("status peers (-want +got):\n%s", diff)
	}

	events := status.PeerEvents(nil, snap)
	want := []status.Event{{Type: "Normal", Reason: "PeerEstablished", Message: "peer red (10.77.0.2, AS 65077) of instance 65001 in VRF vrfa Established"}}
	if diff := cmp.Diff(want, events); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}

	var sessions metrics.Sessions
	sessions.Update(peerSamples(nil, snap))
	t.Cleanup(func() { sessions.Update(nil) })
	got := sessionStates(t)
	for series, v := range map[string]float64{
		"red/vrfa/Established": 1, "red/vrfa/Active": 0, "blue/vrfb/Active": 1, "blue/vrfb/Established": 0,
	} {
		if g, ok := got[series]; !ok || g != v {
			t.Errorf("kbgp_session_state %s = %v (present %v), want %v", series, g, ok, v)
		}
	}
}

// sessionStates reads kbgp_session_state from the registry as "peer/vrf/state" → value.
func sessionStates(t *testing.T) map[string]float64 {
	t.Helper()
	families, err := ctrlmetrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		if f.GetName() != "kbgp_session_state" {
			continue
		}
		for _, m := range f.GetMetric() {
			out[label(m, "peer")+"/"+label(m, "vrf")+"/"+label(m, "state")] = m.GetGauge().GetValue()
		}
	}
	return out
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}
