package kubectlbgp

import (
	"fmt"
	"maps"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/render"
)

// explainSelection writes which BGPClusterConfig the node runs and why, the configs
// that also select it but lose, and what keeps the others from selecting it. It returns
// the winner, nil when none selects the node.
func explainSelection(t *text, in explainInput) *kbgpv1.BGPClusterConfig {
	selectors, errs := render.ParseSelectors(in.ClusterConfigs)
	for _, err := range errs {
		t.line(0, "warning: %v (it selects no node)", err)
	}
	a := render.AssignNode(selectors, in.NodeLabels)
	if a.Winner == nil {
		t.line(0, "Cluster config: none of %d BGPClusterConfigs selects %s, so the operator renders no BGPNodeConfig for it", len(in.ClusterConfigs), in.NodeName)
	} else {
		t.line(0, "Cluster config: %s (created %s)", a.Winner.Name, timestamp(a.Winner.CreationTimestamp.Time))
		t.line(1, "selects the node by: %s", requirementsText(a.Winner.Spec.NodeSelector, in.NodeLabels, true))
	}
	if len(a.Losers) > 0 {
		t.line(1, "also selected by (these lose and report ConflictingClusterConfigs=True):")
		for _, l := range a.Losers {
			t.line(2, "%s: %s; selects the node by: %s", l.Name, whyLoses(l, a.Winner),
				requirementsText(l.Spec.NodeSelector, in.NodeLabels, true))
		}
	}
	explainNotSelecting(t, selectors, a, in.NodeLabels)
	return a.Winner
}

// explainNotSelecting lists the configs that do not select the node with the
// requirements the node fails, which is usually the answer to "why is my node not
// peering".
func explainNotSelecting(t *text, selectors []render.ClusterConfigSelector, a render.Assignment, nodeLabels map[string]string) {
	var others []*kbgpv1.BGPClusterConfig
	for _, s := range selectors {
		if s.Config != a.Winner && !slices.Contains(a.Losers, s.Config) {
			others = append(others, s.Config)
		}
	}
	if len(others) == 0 {
		return
	}
	t.line(1, "not selected by:")
	for _, cc := range others {
		t.line(2, "%s: node fails %s", cc.Name, requirementsText(cc.Spec.NodeSelector, nodeLabels, false))
	}
}

// whyLoses states the precedence rule that made winner win over loser: the oldest
// config wins, then the alphabetically first name.
func whyLoses(loser, winner *kbgpv1.BGPClusterConfig) string {
	if !loser.CreationTimestamp.Equal(&winner.CreationTimestamp) {
		return fmt.Sprintf("created %s, after %s", timestamp(loser.CreationTimestamp.Time), winner.Name)
	}
	return fmt.Sprintf("created at the same time as %s, whose name sorts first", winner.Name)
}

// requirement is one label requirement of a node selector, evaluated on the node.
type requirement struct {
	// expr is the requirement in kubectl's selector syntax, e.g. "rack=rack1", "!spot".
	expr  string
	key   string
	holds bool
}

// requirements splits a node selector into its single requirements, each evaluated
// with apimachinery's own selector code so the verdict matches the operator's.
func requirements(sel *kbgpv1.LabelSelector, nodeLabels map[string]string) []requirement {
	if sel == nil {
		return nil
	}
	type single struct {
		key string
		sel *metav1.LabelSelector
	}
	var singles []single
	for _, k := range slices.Sorted(maps.Keys(sel.MatchLabels)) {
		singles = append(singles, single{k, &metav1.LabelSelector{MatchLabels: map[string]string{k: string(sel.MatchLabels[k])}}})
	}
	for _, r := range sel.MatchExpressions {
		one := kbgpv1.LabelSelector{MatchExpressions: []kbgpv1.LabelSelectorRequirement{r}}
		singles = append(singles, single{r.Key, one.ToMetav1()})
	}
	out := make([]requirement, 0, len(singles))
	for _, s := range singles {
		parsed, err := metav1.LabelSelectorAsSelector(s.sel)
		if err != nil {
			out = append(out, requirement{expr: fmt.Sprintf("a requirement on %s that does not parse (%v)", s.key, err), key: s.key})
			continue
		}
		out = append(out, requirement{expr: parsed.String(), key: s.key, holds: parsed.Matches(labels.Set(nodeLabels))})
	}
	return out
}

// requirementsText renders the requirements that hold (holding=true) or fail
// (holding=false), each with the node's value for its key.
func requirementsText(sel *kbgpv1.LabelSelector, nodeLabels map[string]string, holding bool) string {
	reqs := requirements(sel, nodeLabels)
	switch {
	case sel == nil:
		return "no nodeSelector (selects every node)"
	case len(reqs) == 0:
		return "an empty nodeSelector (selects every node)"
	}
	var parts []string
	for _, r := range reqs {
		if r.holds != holding {
			continue
		}
		node := "node has no " + r.key + " label"
		if v, ok := nodeLabels[r.key]; ok {
			node = "node has " + r.key + "=" + v
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", r.expr, node))
	}
	return joinOr(parts, "nothing")
}
