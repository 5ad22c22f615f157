package kubectlbgp

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/types"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/adjribapi"
	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/intent"
)

// agentView is what a node's agent answered about a Service's addresses: every peer
// it runs, each with those of its routes that are the addresses' host routes.
type agentView struct {
	peers []adjribapi.Peer
	// err says why the agent could not be asked.
	err error
}

// askAgent asks get, once per address, which of the addresses' host routes each peer
// is sent now.
func askAgent(ctx context.Context, get agentGet, addrs []netip.Addr) agentView {
	var v agentView
	for _, a := range addrs {
		answer, err := agentRoutes(ctx, get, adjribapi.Advertised, "", netip.PrefixFrom(a, a.BitLen()).String())
		if err != nil {
			return agentView{err: err}
		}
		for _, p := range answer.Peers {
			i := slices.IndexFunc(v.peers, func(q adjribapi.Peer) bool { return samePeer(p, q) })
			if i < 0 {
				v.peers = append(v.peers, p)
				continue
			}
			v.peers[i].Routes = append(v.peers[i].Routes, p.Routes...)
		}
	}
	return v
}

// agentServiceLines says, per peer the node's agent runs, whether each address is in
// the peer's Adj-RIB-Out now (a fact, from the agent) and, when it is not, why as far
// as the node's status and the recomputation tell (said as such).
// computedWhy is the computed reason the node announces none of the addresses, "" when
// it announces some.
func agentServiceLines(t *text, key types.NamespacedName, addrs []netip.Addr, n serviceNode, res intent.Result, computedWhy string) {
	if n.agent.err != nil {
		t.line(1, "the agent was not asked: %v", n.agent.err)
		return
	}
	if len(n.agent.peers) == 0 {
		t.line(1, "the agent runs no peer")
	}
	for _, p := range n.agent.peers {
		sent := map[string]adjribapi.Route{}
		for _, r := range p.Routes {
			sent[r.Prefix] = r
		}
		for _, a := range addrs {
			prefix := netip.PrefixFrom(a, a.BitLen())
			name := fmt.Sprintf("instance %s peer %s", instanceName(p), cell(p.Name))
			if p.Error != "" {
				t.line(1, "%s: Adj-RIB-Out not read: %s", name, cell(p.Error))
				continue
			}
			if r, ok := sent[prefix.String()]; ok {
				t.line(1, "%s is sent %s now: next hop %s, communities %s, large communities %s", name, prefix, dash(r.NextHop),
					dash(strings.Join(r.Communities, ",")), dash(strings.Join(r.LargeCommunities, ",")))
				continue
			}
			t.line(1, "%s is not sent %s: %s", name, prefix, whyNotSent(key, n.in.NodeConfig, p, prefix, res, computedWhy))
		}
	}
}

// maxFailedResources is the cap of status.failedResources (the CRD's MaxItems): a full
// list may leave a refusal out.
const maxFailedResources = 64

// whyNotSent explains a host route missing from a peer's Adj-RIB-Out: first what the
// node's status reports (a refusal of the Service, the peer held down or not
// Established) and the session state the agent reports, then what the recomputation
// infers.
func whyNotSent(key types.NamespacedName, nc *kbgpv1.BGPNodeConfig, p adjribapi.Peer, prefix netip.Prefix, res intent.Result, computedWhy string) string {
	if nc != nil {
		for _, f := range nc.Status.FailedResources {
			if f.Kind == "Service" && f.Name == key.String() {
				return "refused (node status): " + cell(f.Message)
			}
		}
		for _, inst := range nc.Status.BGPInstances {
			for _, st := range inst.Peers {
				if uint32(inst.LocalASN) != p.LocalASN || st.VRF != p.VRF || st.Name != p.Name {
					continue
				}
				if st.Reason != "" {
					return fmt.Sprintf("held down (node status): %s: %s", cell(st.Reason), cell(st.Message))
				}
				if st.PeeringState != kbgpv1.PeeringStateEstablished {
					return fmt.Sprintf("its session is %s (node status)", orDefault(string(st.PeeringState), "not reported"))
				}
			}
		}
	}
	if p.State != "" && p.State != string(kbgpv1.PeeringStateEstablished) {
		return fmt.Sprintf("its session is %s (from the agent): nothing is sent", cell(p.State))
	}
	computed := res.Desired.Instances[bgp.InstanceKey{LocalASN: p.LocalASN, VRF: p.VRF}].Peers[p.Name].Export
	if _, ok := computed[prefix]; !ok {
		if computedWhy != "" {
			return "inferred from the recomputation: " + computedWhy
		}
		return "inferred from the recomputation: the peer is not to be sent it (see the computed answer below)"
	}
	why := "computed as to be sent, yet not in the Adj-RIB-Out: the agent has not applied the latest change, or keeps its last good configuration (kubectl bgp explain NODE)"
	if nc != nil && len(nc.Status.FailedResources) >= maxFailedResources {
		why += fmt.Sprintf("; the node's failedResources is at its cap of %d, so a refusal may be unlisted", maxFailedResources)
	}
	return why
}
