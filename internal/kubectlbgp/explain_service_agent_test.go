package kubectlbgp

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/adjribapi"
)

// TestExplainServiceFromTheAgent: the agent sends shop/web's address to tor-a and to
// no other peer; rr is held down; tor-c, not in the status yet, is Connect; shop/outside is refused in the node's status;
// shop/internal is selected by no advertisement; shop/elsewhere has its only endpoint
// on another node; tor-a, Established, is computed to be sent shop/local's address,
// which the agent does not have.
func TestExplainServiceFromTheAgent(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		prefix := r.URL.Query().Get(adjribapi.ParamPrefix)
		torA := adjribapi.Peer{LocalASN: 65001, Name: "tor-a", Address: "10.1.1.1", Routes: []adjribapi.Route{}}
		if prefix == "100.64.1.1/32" {
			torA.Routes = append(torA.Routes, adjribapi.Route{Prefix: prefix, NextHop: "10.1.1.9", Communities: []string{"65535:65281"}})
		}
		_ = json.NewEncoder(w).Encode(adjribapi.Routes{Node: "worker-r", Side: adjribapi.Advertised,
			Peers: []adjribapi.Peer{torA, {LocalASN: 65001, Name: "rr", Address: "10.1.1.2", State: "Idle", Routes: []adjribapi.Route{}},
				{LocalASN: 65001, Name: "tor-c", Address: "10.1.1.3", State: "Connect", Routes: []adjribapi.Route{}}}})
	}))
	defer srv.Close()
	objs := explainServiceObjects()
	for _, o := range objs {
		if nc, ok := o.(*kbgpv1.BGPNodeConfig); ok {
			nc.Status.FailedResources = []kbgpv1.FailedResource{{Kind: "Service", Name: "shop/outside", Message: "LoadBalancerIP 198.51.100.9 is in no pool"}}
			nc.Status.BGPInstances[0].Peers[0].PeeringState = kbgpv1.PeeringStateEstablished
			nc.Status.BGPInstances[0].Peers[1].Reason, nc.Status.BGPInstances[0].Peers[1].Message = "MaxPrefixExceeded", "sent 11 routes, limit 10"
		}
	}
	for _, tc := range []struct {
		service string
		want    []string
	}{
		{"shop/web", []string{
			"instance 65001 peer tor-a is sent 100.64.1.1/32 now: next hop 10.1.1.9, communities 65535:65281, large communities -",
			"instance 65001 peer rr is not sent 100.64.1.1/32: held down (node status): MaxPrefixExceeded: sent 11 routes, limit 10",
			"instance 65001 peer tor-c is not sent 100.64.1.1/32: its session is Connect (from the agent): nothing is sent",
			"computed (not read from the agent):",
			"    announces 100.64.1.1/32 to instance 65001 peer tor-a",
		}},
		{"shop/outside", []string{"instance 65001 peer tor-a is not sent 198.51.100.9/32: refused (node status): LoadBalancerIP 198.51.100.9 is in no pool"}},
		{"shop/internal", []string{"instance 65001 peer tor-a is not sent 10.96.7.7/32: inferred from the recomputation: no BGPAdvertisement that this node's peers select matches"}},
		{"shop/elsewhere", []string{"instance 65001 peer tor-a is not sent 100.64.1.3/32: inferred from the recomputation: its traffic policy is Local and it has no ready endpoint on this node"}},
		{"shop/local", []string{"instance 65001 peer tor-a is not sent 100.64.1.2/32: computed as to be sent, yet not in the Adj-RIB-Out"}},
	} {
		out, _, err := run(t, objs, "explain", "service", tc.service, "--agent-url", srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: output lacks %q:\n%s", tc.service, w, out)
			}
		}
	}
	out, _, err := run(t, explainServiceObjects(), "explain", "service", "shop/web", "--agent-url", "http://127.0.0.1:1")
	if err != nil || !strings.Contains(out, "the agent was not asked") {
		t.Errorf("an unreachable agent is said so: %v\n%s", err, out)
	}
}
