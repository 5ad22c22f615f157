package render

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// maxNamesInMessage bounds how many names a condition message lists, so a conflict
// over thousands of nodes keeps the status small.
const maxNamesInMessage = 10

// ClusterConfigFacts is what the operator observed about one cluster config.
type ClusterConfigFacts struct {
	// SelectedNodes selects the config by label, won or not.
	SelectedNodes int
	// ConflictNodes are selected by this config but run another (older) one, with the
	// winner of each.
	ConflictNodes map[string]string
	// MissingPeerConfigs are peerConfigRef names with no BGPPeerConfig.
	MissingPeerConfigs []string
	// RouterIDConflicts are router IDs shared by several of its nodes.
	RouterIDConflicts []RouterIDConflict
	// HighPoolUsage are its instances whose router-ID pool is more than half used.
	HighPoolUsage []PoolUsage
	// OverriddenPolicies are the nodes where this config runs instead of a
	// BGPPeeringPolicy's generated config, with that policy's name.
	OverriddenPolicies map[string]string
}

// MissingPeerConfigs lists the peerConfigRef names of cc (its peers' and its enabled
// meshes') that are not in existing.
func MissingPeerConfigs(cc *kbgpv1.BGPClusterConfig, existing map[string]bool) []string {
	var missing []string
	note := func(ref *kbgpv1.PeerConfigReference) {
		if ref != nil && !existing[ref.Name] && !slices.Contains(missing, ref.Name) {
			missing = append(missing, ref.Name)
		}
	}
	for _, inst := range cc.Spec.BGPInstances {
		for _, p := range inst.Peers {
			note(p.PeerConfigRef)
		}
		if inst.Mesh != nil && inst.Mesh.Enabled {
			note(inst.Mesh.PeerConfigRef)
		}
	}
	slices.Sort(missing)
	return missing
}

// ClusterConfigConditions returns current with the conditions set from facts.
// Existing conditions keep their lastTransitionTime when their status does not change,
// so an unchanged observation yields an identical list (and no write).
func ClusterConfigConditions(current []metav1.Condition, generation int64, facts ClusterConfigFacts, now metav1.Time) []metav1.Condition {
	out := slices.Clone(current)
	set := func(typ string, status bool, reason, message string) {
		st := metav1.ConditionFalse
		if status {
			st = metav1.ConditionTrue
		}
		c := metav1.Condition{Type: typ, Status: st, Reason: reason, Message: message, ObservedGeneration: generation, LastTransitionTime: now}
		meta.SetStatusCondition(&out, c)
	}

	noNodes := facts.SelectedNodes == 0
	if noNodes {
		set(kbgpv1.ConditionNoMatchingNodes, true, kbgpv1.ConditionNoMatchingNodes, "the nodeSelector selects no node")
	} else {
		set(kbgpv1.ConditionNoMatchingNodes, false, kbgpv1.ReasonNodesSelected, fmt.Sprintf("the nodeSelector selects %d node(s)", facts.SelectedNodes))
	}

	missing := len(facts.MissingPeerConfigs) > 0
	if missing {
		set(kbgpv1.ConditionMissingPeerConfigs, true, kbgpv1.ConditionMissingPeerConfigs, "BGPPeerConfig not found: "+nameList(facts.MissingPeerConfigs))
	} else {
		set(kbgpv1.ConditionMissingPeerConfigs, false, kbgpv1.ReasonPeerConfigsFound, "every peerConfigRef exists")
	}

	conflict := len(facts.ConflictNodes) > 0
	if conflict {
		set(kbgpv1.ConditionConflictingClusterConfigs, true, kbgpv1.ConditionConflictingClusterConfigs, conflictMessage(facts.ConflictNodes))
	} else {
		set(kbgpv1.ConditionConflictingClusterConfigs, false, kbgpv1.ReasonNoConflict, "no other BGPClusterConfig takes precedence on a selected node")
	}

	idConflict := len(facts.RouterIDConflicts) > 0
	if idConflict {
		set(kbgpv1.ConditionRouterIDConflict, true, kbgpv1.ConditionRouterIDConflict, routerIDConflictMessage(facts.RouterIDConflicts))
	} else {
		set(kbgpv1.ConditionRouterIDConflict, false, kbgpv1.ReasonRouterIDsUnique, "every node resolved a distinct router ID")
	}

	// A warning only: a full pool makes collisions likely, RouterIDConflict reports
	// the ones that happen. Ready does not depend on it.
	if len(facts.HighPoolUsage) > 0 {
		set(kbgpv1.ConditionRouterIDPoolUsageHigh, true, kbgpv1.ConditionRouterIDPoolUsageHigh, poolUsageMessage(facts.HighPoolUsage))
	} else {
		set(kbgpv1.ConditionRouterIDPoolUsageHigh, false, kbgpv1.ReasonPoolUsageNormal, "every routerIDPool is at most half used")
	}

	// Present only while it holds: most configs never meet a peering policy.
	if len(facts.OverriddenPolicies) > 0 {
		set(kbgpv1.ConditionOverridesPeeringPolicy, true, kbgpv1.ConditionOverridesPeeringPolicy, overriddenPoliciesMessage(facts.OverriddenPolicies))
	} else {
		meta.RemoveStatusCondition(&out, kbgpv1.ConditionOverridesPeeringPolicy)
	}

	switch {
	case noNodes:
		set(kbgpv1.ConditionReady, false, kbgpv1.ConditionNoMatchingNodes, "no node runs this configuration")
	case missing:
		set(kbgpv1.ConditionReady, false, kbgpv1.ConditionMissingPeerConfigs, "peers reference missing BGPPeerConfigs: "+nameList(facts.MissingPeerConfigs))
	case conflict:
		set(kbgpv1.ConditionReady, false, kbgpv1.ConditionConflictingClusterConfigs, conflictMessage(facts.ConflictNodes))
	case idConflict:
		set(kbgpv1.ConditionReady, false, kbgpv1.ConditionRouterIDConflict, routerIDConflictMessage(facts.RouterIDConflicts))
	default:
		set(kbgpv1.ConditionReady, true, kbgpv1.ReasonRendered, fmt.Sprintf("rendered for %d node(s)", facts.SelectedNodes))
	}
	return out
}

func conflictMessage(conflicts map[string]string) string {
	return nodeMessage("%d selected node(s) run another BGPClusterConfig that takes precedence: ", conflicts, "runs")
}

func overriddenPoliciesMessage(policies map[string]string) string {
	return nodeMessage("%d selected node(s) run this user-written config instead of a BGPPeeringPolicy's (a user's config takes precedence): ", policies, "policy")
}

// nodeMessage lists at most maxNamesInMessage nodes, each with what it maps to.
func nodeMessage(head string, byNode map[string]string, what string) string {
	nodes := make([]string, 0, len(byNode))
	for n := range byNode {
		nodes = append(nodes, n)
	}
	slices.Sort(nodes)
	parts := make([]string, 0, min(len(nodes), maxNamesInMessage))
	for _, n := range nodes[:min(len(nodes), maxNamesInMessage)] {
		parts = append(parts, fmt.Sprintf("%s (%s %s)", n, what, byNode[n]))
	}
	msg := fmt.Sprintf(head, len(nodes)) + strings.Join(parts, ", ")
	if len(nodes) > maxNamesInMessage {
		msg += fmt.Sprintf(" and %d more", len(nodes)-maxNamesInMessage)
	}
	return msg
}

func routerIDConflictMessage(conflicts []RouterIDConflict) string {
	parts := make([]string, 0, min(len(conflicts), maxNamesInMessage))
	for _, c := range conflicts[:min(len(conflicts), maxNamesInMessage)] {
		parts = append(parts, c.String())
	}
	msg := strings.Join(parts, "; ")
	if len(conflicts) > maxNamesInMessage {
		msg += fmt.Sprintf(" and %d more", len(conflicts)-maxNamesInMessage)
	}
	return msg
}

func nameList(names []string) string {
	s := strings.Join(names[:min(len(names), maxNamesInMessage)], ", ")
	if len(names) > maxNamesInMessage {
		s += fmt.Sprintf(" and %d more", len(names)-maxNamesInMessage)
	}
	return s
}
