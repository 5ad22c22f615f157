package kubectlbgp

import (
	"fmt"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// explainOverride writes which BGPNodeConfigOverride applies to the node, every field
// it overrides, and the override entries that take no effect (another override won, or
// an entry names an instance or peer the node does not run), as the operator reports
// them in failedResources.
func explainOverride(t *text, node string, applied *kbgpv1.BGPNodeConfigOverride, problems []kbgpv1.FailedResource, selected bool) {
	if applied == nil {
		t.line(0, "Override: none (no BGPNodeConfigOverride has spec.nodeRef=%s)", node)
		return
	}
	t.line(0, "Override: %s (spec.nodeRef=%s)", applied.Name, node)
	if !selected {
		t.line(1, "takes effect only once a cluster config selects the node")
	}
	for _, oi := range applied.Spec.BGPInstances {
		var fields []string
		if oi.NodeLocalASN != 0 {
			fields = append(fields, fmt.Sprintf("nodeLocalASN %d", oi.NodeLocalASN))
		}
		if oi.RouterID != "" {
			fields = append(fields, "routerID "+string(oi.RouterID))
		}
		if oi.LocalPort != nil {
			fields = append(fields, fmt.Sprintf("localPort %d", *oi.LocalPort))
		}
		t.line(1, "instance %d: %s", oi.LocalASN, joinOr(fields, "no instance fields"))
		for _, op := range oi.Peers {
			t.line(2, "peer %s: %s", op.Name, joinOr(endpointFields(op.PeerLocalEndpoint), "no fields"))
		}
	}
	for _, p := range problems {
		t.line(1, "not applied: %s/%s: %s", p.Kind, p.Name, p.Message)
	}
}

// endpointFields lists the set fields of a peer's node-side endpoint.
func endpointFields(e kbgpv1.PeerLocalEndpoint) []string {
	var fields []string
	if e.LocalAddress != "" {
		fields = append(fields, "localAddress "+e.LocalAddress)
	}
	if e.LocalPort != nil {
		fields = append(fields, fmt.Sprintf("localPort %d", *e.LocalPort))
	}
	return fields
}
