package render

import (
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// ClusterConfigSelector is a cluster config with its node selector parsed once, so a
// node can be matched against many configs without re-parsing.
type ClusterConfigSelector struct {
	Config   *kbgpv1.BGPClusterConfig
	selector labels.Selector
}

// ParseSelectors parses the node selectors of configs and returns them ordered by
// precedence: oldest first, then by name. A config whose selector does not parse
// selects no node and is reported in the returned errors (the schema makes this
// unreachable in practice; it is handled so a bad object can never select everything).
func ParseSelectors(configs []kbgpv1.BGPClusterConfig) ([]ClusterConfigSelector, []error) {
	out := make([]ClusterConfigSelector, 0, len(configs))
	var errs []error
	for i := range configs {
		cc := &configs[i]
		sel := labels.Everything()
		if cc.Spec.NodeSelector != nil {
			var err error
			sel, err = metav1.LabelSelectorAsSelector(cc.Spec.NodeSelector.ToMetav1())
			if err != nil {
				errs = append(errs, fmt.Errorf("BGPClusterConfig %s: nodeSelector: %w", cc.Name, err))
				sel = labels.Nothing()
			}
		}
		out = append(out, ClusterConfigSelector{Config: cc, selector: sel})
	}
	slices.SortFunc(out, func(a, b ClusterConfigSelector) int { return comparePrecedence(a.Config, b.Config) })
	return out, errs
}

// Selects reports whether the config selects a node with the given labels.
func (s ClusterConfigSelector) Selects(nodeLabels map[string]string) bool {
	return s.selector.Matches(labels.Set(nodeLabels))
}

// comparePrecedence orders cluster configs by precedence: one a user wrote before one
// generated from a BGPPeeringPolicy whatever their ages, then the oldest, then the
// alphabetically first name, so the winner never depends on list order.
func comparePrecedence(a, b *kbgpv1.BGPClusterConfig) int {
	if ga, gb := GeneratedByPolicy(a), GeneratedByPolicy(b); ga != gb {
		if gb {
			return -1
		}
		return 1
	}
	ta, tb := a.CreationTimestamp.Time, b.CreationTimestamp.Time
	if !ta.Equal(tb) {
		if ta.Before(tb) {
			return -1
		}
		return 1
	}
	switch {
	case a.Name < b.Name:
		return -1
	case a.Name > b.Name:
		return 1
	}
	return 0
}

// Assignment is the outcome of selection for one node.
type Assignment struct {
	// Winner is the config the node runs, nil when none selects it.
	Winner *kbgpv1.BGPClusterConfig
	// Losers also select the node but lose to Winner.
	Losers []*kbgpv1.BGPClusterConfig
}

// AssignNode picks the config a node runs from selectors ordered by ParseSelectors.
func AssignNode(selectors []ClusterConfigSelector, nodeLabels map[string]string) Assignment {
	var a Assignment
	for _, s := range selectors {
		if !s.Selects(nodeLabels) {
			continue
		}
		if a.Winner == nil {
			a.Winner = s.Config
		} else {
			a.Losers = append(a.Losers, s.Config)
		}
	}
	return a
}

// GeneratedByPolicy reports whether the operator generated cc from a BGPPeeringPolicy,
func GeneratedByPolicy(cc *kbgpv1.BGPClusterConfig) bool {
	return cc.Labels[kbgpv1.PeeringPolicyLabel] != ""
}
