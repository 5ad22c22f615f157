package kubectlbgp

import (
	"time"

	"k8s.io/apimachinery/pkg/labels"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/render"
)

// explainInput is everything `kubectl bgp explain` reads, fetched beforehand, so that
// the explanation is a pure function of the objects and can be tested without an API
// server.
type explainInput struct {
	NodeName       string
	NodeLabels     map[string]string
	ClusterConfigs []kbgpv1.BGPClusterConfig
	// Overrides are all overrides; explain picks those whose nodeRef names the node.
	Overrides      []kbgpv1.BGPNodeConfigOverride
	PeerConfigs    []kbgpv1.BGPPeerConfig
	Advertisements []kbgpv1.BGPAdvertisement
	// NodeConfig is the node's BGPNodeConfig, nil when there is none.
	NodeConfig *kbgpv1.BGPNodeConfig
}

// explain answers "why does this node run what it runs". It redoes the operator's
// decisions with the operator's own functions (render.ParseSelectors, AssignNode,
// PickOverride, NodeConfig) so the answer cannot drift from what the operator does,
// follows every peer to its BGPPeerConfig and BGPAdvertisements, and ends with what
// the agent reports.
func explain(in explainInput) []string {
	var t text
	t.line(0, "Node: %s", in.NodeName)
	t.line(1, "labels: %s", labels.FormatLabels(in.NodeLabels))
	t.blank()

	winner := explainSelection(&t, in)
	t.blank()

	var targeting []kbgpv1.BGPNodeConfigOverride
	for _, o := range in.Overrides {
		if o.Spec.NodeRef == in.NodeName {
			targeting = append(targeting, o)
		}
	}
	applied, ignored := render.PickOverride(targeting)
	var rendered *kbgpv1.BGPNodeConfig
	var unmatched []kbgpv1.FailedResource
	if winner != nil {
		rendered, unmatched = render.NodeConfig(winner, render.Node{Name: in.NodeName}, applied)
	}
	explainOverride(&t, in.NodeName, applied, append(ignored, unmatched...), winner != nil)
	t.blank()

	if rendered != nil {
		explainInstances(&t, in, winner, rendered, applied)
		t.blank()
	}
	explainStatus(&t, in.NodeConfig, winner)
	return t.lines
}

// timestamp renders an object time in UTC, so the output does not depend on the
// reader's time zone.
func timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }
