package frr

import (
	"encoding/json"
	"testing"
)

// An excerpt of FRR 8.4's "show bgp ipv4 unicast json detail": a prefix header, then
// one path per neighbor.
const routesJSON = `{"routes": {"100.64.0.10/32": [
  {"prefix": "100.64.0.10/32", "version": 3, "advertisedTo": {}},
  {"aspath": {"string": "65001", "segments": [{"type": "as-sequence", "list": [65001]}]},
   "community": {"string": "65001:200 no-export", "list": ["65001:200", "noExport"]},
   "largeCommunity": {"string": "65001:1:2", "list": ["65001:1:2"]},
   "origin": "IGP", "valid": true, "locPrf": 250, "stale": true,
   "bestpath": {"overall": true, "selectionReason": "First path received"},
   "nexthops": [{"ip": "127.0.1.1", "afi": "ipv4", "used": true}],
   "peer": {"peerId": "127.0.1.1", "routerId": "10.0.0.1"}},
  {"aspath": {"string": "65001"}, "valid": true,
   "nexthops": [{"ip": "127.0.1.3", "afi": "ipv4", "used": true}],
   "peer": {"peerId": "127.0.1.3", "routerId": "10.0.0.3"}}
]}}`

func TestDecodeRoutes(t *testing.T) {
	var table struct {
		Routes map[string][]json.RawMessage `json:"routes"`
	}
	if err := json.Unmarshal([]byte(routesJSON), &table); err != nil {
		t.Fatal(err)
	}
	routes, err := DecodeRoutes(table.Routes)
	if err != nil {
		t.Fatal(err)
	}
	r, ok := routes["100.64.0.10/32"]
	if !ok || len(r.Paths) != 2 {
		t.Fatalf("routes %v", routes)
	}
	if !r.Best || !r.Stale || r.Nexthop != "127.0.1.1" || r.ASPath != "65001" || r.LocalPref == nil || *r.LocalPref != 250 {
		t.Errorf("best path flattened as %v", r)
	}
	if !r.HasCommunity("65001:200") || !r.HasLargeCommunity("65001:1:2") {
		t.Errorf("communities %v %v", r.Communities, r.LargeCommunities)
	}
	if p := r.Paths[1]; p.PeerID != "127.0.1.3" || p.Best {
		t.Errorf("second path %+v", p)
	}
}

func TestDecodeNeighbors(t *testing.T) {
	raw := map[string]json.RawMessage{
		"10.0.0.2": json.RawMessage(`{"remoteAs": 65001, "bgpState": "Established", "connectionsDropped": 2,
			"gracefulRestartInfo": {"rBit": true, "endOfRibRecv": {"IPv4 Unicast": true}}}`),
		"totalPeers": json.RawMessage(`3`),
	}
	got, err := DecodeNeighbors(raw)
	if err != nil {
		t.Fatal(err)
	}
	n, ok := got["10.0.0.2"]
	if len(got) != 1 || !ok || n.State != "Established" || n.ConnectionsDropped != 2 || n.GracefulRestartInfo == nil || !n.GracefulRestartInfo.RBit {
		t.Errorf("neighbors %+v", got)
	}
	if _, err := DecodeNeighbors(map[string]json.RawMessage{"bgpNoSuchNeighbor": json.RawMessage(`true`)}); err == nil {
		t.Error("no such neighbor decoded without an error")
	}
}
