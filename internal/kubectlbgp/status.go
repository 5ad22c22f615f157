package kubectlbgp

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// statusHeader is the header of `kubectl bgp status`.
var statusHeader = []string{"NODE", "ROUTER-ID", "READY", "DEGRADED", "PEERS", "FAILED", "POD-NETWORK", "AGENT-SEEN"}

// statusLines renders one aligned line per node, sorted by name, each followed by one
// indented "Kind/Name: message" line per failed resource. The failed lines stay outside
// the table so a long message does not widen every column. AGENT-SEEN is how long ago
// the node's agent last renewed its Lease (seen, by node name): a steady status is
// never rewritten, so only the Lease tells a live agent from a dead one.
func statusLines(ncs []kbgpv1.BGPNodeConfig, seen map[string]*metav1.Time, now time.Time) []string {
	sorted := slices.Clone(ncs)
	slices.SortFunc(sorted, func(a, b kbgpv1.BGPNodeConfig) int { return strings.Compare(a.Name, b.Name) })
	rows := make([][]string, len(sorted))
	for i := range sorted {
		rows[i] = append(statusCells(&sorted[i].Status, sorted[i].Name), since(seen[sorted[i].Name], now))
	}
	table := formatTable(statusHeader, rows)
	out := []string{table[0]}
	for i := range sorted {
		out = append(out, table[i+1])
		out = append(out, failedLines(sorted[i].Status.FailedResources, "  ")...)
	}
	return out
}

func statusCells(st *kbgpv1.BGPNodeConfigStatus, node string) []string {
	return []string{
		cell(node),
		orDash(cell(routerIDs(st))),
		conditionStatus(st, kbgpv1.ConditionReady),
		conditionStatus(st, kbgpv1.ConditionDegraded),
		peerCount(st),
		strconv.Itoa(len(st.FailedResources)),
		podNetwork(st),
	}
}

// podNetwork is the PodNetworkReady status and the routes installed to other nodes'
// pods, "-" on a node where kbgp is not the pod network.
func podNetwork(st *kbgpv1.BGPNodeConfigStatus) string {
	if st.PodNetwork == nil {
		return "-"
	}
	return fmt.Sprintf("%s,%d-routes", conditionStatus(st, "PodNetworkReady"), st.PodNetwork.InstalledRoutes)
}

// routerIDs lists the resolved router ID of every instance, in status order; an
// instance not yet resolved is left out.
func routerIDs(st *kbgpv1.BGPNodeConfigStatus) string {
	var ids []string
	for _, inst := range st.BGPInstances {
		if inst.RouterID != "" {
			ids = append(ids, inst.RouterID)
		}
	}
	return strings.Join(ids, ",")
}

// conditionStatus is the condition's status, "-" when the agent has not reported it
// (a node whose agent never ran has no conditions at all).
func conditionStatus(st *kbgpv1.BGPNodeConfigStatus, condType string) string {
	c := meta.FindStatusCondition(st.Conditions, condType)
	if c == nil {
		return "-"
	}
	return orDash(cell(string(c.Status)))
}

// peerCount is "established/total" over every instance of the node.
func peerCount(st *kbgpv1.BGPNodeConfigStatus) string {
	established, total := 0, 0
	for _, inst := range st.BGPInstances {
		for _, p := range inst.Peers {
			total++
			if p.PeeringState == kbgpv1.PeeringStateEstablished {
				established++
			}
		}
	}
	return fmt.Sprintf("%d/%d", established, total)
}

// failedLines renders each failed resource as "Kind/Name: message" behind indent, in
// the order stored (the operator and the agent keep it sorted).
func failedLines(frs []kbgpv1.FailedResource, indent string) []string {
	out := make([]string, 0, len(frs))
	for _, fr := range frs {
		out = append(out, fmt.Sprintf("%s%s/%s: %s", indent, clean(fr.Kind), clean(fr.Name), clean(fr.Message)))
	}
	return out
}
