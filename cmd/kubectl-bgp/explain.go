package main

import (
	"time"

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

// explain answers "why does this node run what it runs": it redoes the operator's
// decisions with the operator's own functions (render.ParseSelectors, AssignNode,
// PickOverride, NodeConfig) so the answer cannot drift from what the operator does,
// then follows every peer to its BGPPeerConfig and BGPAdvertisements, and ends with
// what the agent reports.
func explain(in explainInput) []string {
	var t text
	t.line(0, "Node: %s", in.NodeName)
	t.line(1, "labels: %s", formatLabels(in.NodeLabels))
	t.blank()

	winner := explainSelection(&t, in)
	t.blank()
	override := explainOverride(&t, in, winner)
	t.blank()
	if winner != nil {
		nc, problems := render.NodeConfig(winner, render.Node{Name: in.NodeName}, override)
		explainInstances(&t, in, winner, nc, override, problems)
		t.blank()
	}
	explainStatus(&t, in.NodeConfig, winner)
	return t.lines
}

// timestamp renders an object time in UTC, so output does not depend on the reader's
// time zone.
func timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }
