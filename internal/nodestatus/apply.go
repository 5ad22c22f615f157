// Package nodestatus writes parts of a BGPNodeConfig's status with server-side apply.
// Three writers share that status — the agent (its view of the node), the operator's
// node config controller (the failedResources of overrides) and its liveness
// controller (Ready of a node whose agent went silent) — and each applies only the
// fields it owns, under its own field manager, so none removes another's.
package nodestatus

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// Apply server-side applies status to the BGPNodeConfig named node as fieldManager.
// status holds the fields the manager owns; empty ones are left out, except the list
// fields named in lists (JSON names), which are sent empty so that the server removes
// the manager's entries that are gone. Ownership is forced: every field has one writer
// by design, and a writer taking a field back — the agent re-asserting the Ready
// condition the liveness controller set — is intended.
func Apply(ctx context.Context, c client.Client, node, fieldManager string, status *kbgpv1.BGPNodeConfigStatus, lists ...string) error {
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(status)
	if err != nil {
		return fmt.Errorf("convert the status of BGPNodeConfig %s: %w", node, err)
	}
	for _, name := range lists {
		if _, ok := content[name]; !ok {
			content[name] = []any{}
		}
	}
	patch := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": kbgpv1.GroupVersion.String(),
		"kind":       "BGPNodeConfig",
		"metadata":   map[string]any{"name": node},
		"status":     content,
	}}
	return c.Status().Patch(ctx, patch, client.Apply, client.FieldOwner(fieldManager), client.ForceOwnership)
}
