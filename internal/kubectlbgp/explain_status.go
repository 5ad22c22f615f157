package kubectlbgp

import (
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// explainStatus summarises what the agent reports for the node: whether it applied the
// latest spec, each instance's router ID and how it was resolved, the conditions and
// the failed resources. It also says when the stored BGPNodeConfig was rendered from
// another cluster config than the one that selects the node now, which means the
// operator has not caught up (or is not running).
func explainStatus(t *text, nc *kbgpv1.BGPNodeConfig, winner *kbgpv1.BGPClusterConfig) {
	if nc == nil {
		t.line(0, "Status: no BGPNodeConfig exists for the node")
		return
	}
	st := &nc.Status
	t.line(0, "Status (BGPNodeConfig %s, generation %d, observed %d):", nc.Name, nc.Generation, st.ObservedGeneration)
	if from := nc.Labels[kbgpv1.ClusterConfigLabel]; winner == nil || from != winner.Name {
		t.line(1, "warning: rendered from cluster config %q, not from the selection above: the operator has not caught up", from)
	}
	if st.ObservedGeneration < nc.Generation {
		t.line(1, "warning: the agent has not applied the latest spec yet")
	}
	for _, inst := range st.BGPInstances {
		t.line(1, "instance %d: %s", inst.LocalASN, routerIDSummary(inst))
	}
	for _, c := range orderedConditions(st.Conditions) {
		line := c.Type + "=" + string(c.Status) + " " + c.Reason
		if c.Message != "" {
			line += ": " + c.Message
		}
		t.line(1, "%s", line)
	}
	t.line(1, "peers: %s established", peerCount(st))
	if len(st.FailedResources) == 0 {
		t.line(1, "failed resources: none")
		return
	}
	t.line(1, "failed resources:")
	for _, l := range failedLines(st.FailedResources, "") {
		t.line(2, "%s", l)
	}
}

// routerIDSummary is the resolved router ID with its source, or says it is not
// resolved yet.
func routerIDSummary(inst kbgpv1.BGPNodeInstanceStatus) string {
	if inst.RouterID == "" {
		return "router ID not resolved yet"
	}
	details := []string{}
	if inst.RouterIDSource != "" {
		details = append(details, "source "+string(inst.RouterIDSource))
	}
	if inst.RouterIDNode != "" {
		details = append(details, "from node "+inst.RouterIDNode)
	}
	if inst.RouterIDResolutionTime != nil {
		details = append(details, "resolved "+timestamp(inst.RouterIDResolutionTime.Time))
	}
	s := "router ID " + inst.RouterID
	if len(details) > 0 {
		s += " (" + strings.Join(details, ", ") + ")"
	}
	return s
}

// orderedConditions puts the three conditions the agent writes first, in a fixed
// order, then any others as stored.
func orderedConditions(cs []metav1.Condition) []metav1.Condition {
	known := []string{kbgpv1.ConditionReady, kbgpv1.ConditionDegraded, kbgpv1.ConditionRouterIDResolved}
	rank := func(c metav1.Condition) int {
		if i := slices.Index(known, c.Type); i >= 0 {
			return i
		}
		return len(known)
	}
	out := slices.Clone(cs)
	slices.SortStableFunc(out, func(a, b metav1.Condition) int { return rank(a) - rank(b) })
	return out
}
