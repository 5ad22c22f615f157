package netlab

import (
	"encoding/json"
	"testing"
)

func TestParseBIRDRoutes(t *testing.T) {
	out := `BIRD 2.0.12 ready.
Table master4:
10.20.0.0/24         unicast [b1 09:44:23.023] * (100) [AS65001i]
	via 10.1.0.1 on eth0
	Type: BGP univ
	BGP.origin: IGP
	BGP.as_path: 65001
	BGP.next_hop: 10.1.0.1
	BGP.local_pref: 100
	BGP.community: (65001,1) (65001,2)
	BGP.large_community: (65001, 7, 8)
                     unicast [b2 09:44:24.000] (100) [AS65002 65003i]
	via 10.2.0.1 on eth1
	Type: BGP univ
	BGP.as_path: 65002 65003
203.0.113.0/24       unreachable [static4 09:44:20.941] * (200)
	Type: static univ
	BGP.community: (65020,100)

Table master6:
2001:db8:100::/48    unreachable [static6 09:44:20.941] * (200)
	Type: static univ
`
	rs := parseBIRDRoutes(out)
	if len(rs) != 3 {
		t.Fatalf("got %d routes: %+v", len(rs), rs)
	}
	r := rs["10.20.0.0/24"]
	if r.Proto != "b1" || !r.Primary || r.Via != "10.1.0.1" || r.ASPath != "65001" || r.LocalPref != "100" ||
		!r.HasCommunity("65001:2") || !r.HasLargeCommunity("65001:7:8") || len(r.Alternatives) != 1 {
		t.Errorf("primary: %+v", r)
	}
	if a := r.Alternatives[0]; a.Proto != "b2" || a.Primary || a.ASPath != "65002 65003" || a.Via != "10.2.0.1" {
		t.Errorf("alternative: %+v", a)
	}
	if s := rs["203.0.113.0/24"]; s.Kind != "unreachable" || !s.HasCommunity("65020:100") {
		t.Errorf("static: %+v", s)
	}
	if s := rs["2001:db8:100::/48"]; s.Proto != "static6" {
		t.Errorf("static6: %+v", s)
	}
}

func TestParseBIRDProtocol(t *testing.T) {
	out := `BIRD 2.0.12 ready.
Name       Proto      Table      State  Since         Info
frr4       BGP        ---        start  09:42:42.311  Idle          Received: Invalid network field
  BGP state:          Idle
    Neighbor address: 10.1.0.1
    Neighbor AS:      65010
    Local AS:         65020
    Last error:       Received: Invalid network field
`
	p, err := parseBIRDProtocol("frr4", out)
	if err != nil {
		t.Fatal(err)
	}
	if p.State != "start" || p.BGPState != "Idle" || p.Info != "Idle          Received: Invalid network field" ||
		p.LastError != "Received: Invalid network field" || p.NeighborAddress != "10.1.0.1" || p.Proto != "BGP" {
		t.Errorf("%+v", p)
	}
	if _, err := parseBIRDProtocol("nope", out); err == nil {
		t.Error("missing protocol not reported")
	}
}

func TestBIRDSameStateChange(t *testing.T) {
	up := func(since string) BIRDProtocol { return BIRDProtocol{State: "up", Since: since} }
	for _, tc := range []struct {
		before, now BIRDProtocol
		same        bool
	}{
		{up("16:26:11.291"), up("16:26:11.291"), true},
		{up("16:26:11.291"), up("16:26:11.292"), true}, // BIRD's jitter, seen in CI
		{up("16:26:11.292"), up("16:26:11.290"), true},
		{up("23:59:59.999"), up("00:00:00.001"), true},
		{up("16:26:11.291"), up("16:26:12.410"), false}, // a restart
		{up("16:26:11.291"), up("16:26:11.491"), false},
		{up("16:26:11.291"), BIRDProtocol{State: "start", Since: "16:26:11.291"}, false},
		{up("16:26:11.291"), up("2026-11-28"), false},
	} {
		if got := tc.now.SameStateChange(tc.before); got != tc.same {
			t.Errorf("%+v after %+v: same %v, want %v", tc.now, tc.before, got, tc.same)
		}
	}
}

func TestProcNetListening(t *testing.T) {
	out := `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:192B 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1 0000000000000000 100 0 0 10 0
   1: 0100007F:1F90 0100007F:C350 01 00000000:00000000 00:00000000 00000000     0        0 2 1 0000000000000000 100 0 0 10 0
`
	if !procNetListening(out, 6443) {
		t.Error("6443 not found")
	}
	if procNetListening(out, 8080) {
		t.Error("8080 (established, not listening) reported")
	}
}

func TestGoBGPState(t *testing.T) {
	for raw, want := range map[string]string{`6`: "ESTABLISHED", `3`: "ACTIVE", `"ESTABLISHED"`: "ESTABLISHED", `"SESSION_STATE_IDLE"`: "IDLE", ``: "UNKNOWN"} {
		if got := gobgpState(json.RawMessage(raw)); got != want {
			t.Errorf("gobgpState(%s) = %s, want %s", raw, got, want)
		}
	}
}
