package gobgp

import (
	"net/netip"
	"testing"
	"time"

	"kbgp.io/kbgp/internal/bgp"
)

func TestToAPIPeerRestarting(t *testing.T) {
	p := bgp.Peer{Families: []bgp.Family{bgp.FamilyIPv4Unicast}, GracefulRestart: bgp.GracefulRestart{Enabled: true, RestartTime: 120 * time.Second}}
	for _, tc := range []struct {
		name           string
		peer           bgp.Peer
		restarting     bool
		wantRestarting bool
		wantDeferral   uint32
	}{
		{"a fresh start never claims forwarding state", p, false, false, 0},
		{"a graceful restart does, deferring half the restart time", p, true, true, 60},
		{"a peer without graceful restart is never restarting", bgp.Peer{Families: p.Families}, true, false, 0},
		{"the deferral stays within a minute", bgp.Peer{Families: p.Families, GracefulRestart: bgp.GracefulRestart{Enabled: true, RestartTime: time.Hour}}, true, true, 60},
	} {
		gr := toAPIPeer(tc.peer, tc.restarting).GetGracefulRestart()
		if gr.GetLocalRestarting() != tc.wantRestarting || gr.GetDeferralTime() != tc.wantDeferral {
			t.Errorf("%s: LocalRestarting %v, DeferralTime %d; want %v, %d", tc.name, gr.GetLocalRestarting(), gr.GetDeferralTime(), tc.wantRestarting, tc.wantDeferral)
		}
	}
}

func TestToAPIPeerBFD(t *testing.T) {
	off := toAPIPeer(bgp.Peer{}, false)
	if off.GetBfd().GetEnabled() {
		t.Errorf("BFD off: %v", off.GetBfd())
	}
	on := toAPIPeer(bgp.Peer{BFD: bgp.BFD{Enabled: true, MinRx: 300 * time.Millisecond, MinTx: 150 * time.Millisecond, DetectMultiplier: 4}}, false).GetBfd()
	if !on.GetEnabled() || on.GetRequiredMinimumReceive() != 300_000 || on.GetDesiredMinimumTxInterval() != 150_000 || on.GetDetectionMultiplier() != 4 {
		t.Errorf("BFD on: %v; want enabled, rx 300000 us, tx 150000 us, multiplier 4", on)
	}
}

func TestToAPIPeerMesh(t *testing.T) {
	plain := toAPIPeer(bgp.Peer{}, false)
	if plain.GetTransport().GetPassiveMode() || plain.GetRouteReflector() != nil {
		t.Errorf("a plain peer is passive (%v) or a reflector client (%v)", plain.GetTransport().GetPassiveMode(), plain.GetRouteReflector())
	}
	client := toAPIPeer(bgp.Peer{Passive: true, RouteReflectorClient: true, RouteReflectorClusterID: netip.MustParseAddr("10.0.0.1")}, false)
	if !client.GetTransport().GetPassiveMode() {
		t.Error("passive peer not in passive mode")
	}
	if rr := client.GetRouteReflector(); !rr.GetRouteReflectorClient() || rr.GetRouteReflectorClusterId() != "10.0.0.1" {
		t.Errorf("route reflector %v, want a client with cluster ID 10.0.0.1", rr)
	}
}
