package agent_test

import (
	"context"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/contract"
	"kbgp.io/kbgp/internal/status"
	"kbgp.io/kbgp/internal/testing/wait"
)

// TestAgentClearsNotReportingAfterRenewal: when the operator has marked the node
// AgentNotReporting (as it does once the agent's Lease expired), the live agent puts
// its own Ready back after its next Lease renewal, although nothing else in its status
// changed.
func TestAgentClearsNotReportingAfterRenewal(t *testing.T) {
	ensureNamespace(t)
	ctx := context.Background()
	const node = "agent-liveness"
	create(t, testNode(node), nodeConfig(node))
	startAgent(t, server.Config, node)
	ready := func() *metav1.Condition {
		return meta.FindStatusCondition(getStatus(t, node).Conditions, kbgpv1.ConditionReady)
	}
	wait.Eventually(t, 30*time.Second, "Ready=True from the agent", func() bool {
		c := ready()
		return c != nil && c.Status == metav1.ConditionTrue
	})

	// Mark the node as the operator does, with its field manager and a forced apply.
	l := &coordinationv1.Lease{}
	if err := server.Client.Get(ctx, types.NamespacedName{Namespace: namespace, Name: contract.AgentLeaseName(node)}, l); err != nil {
		t.Fatal(err)
	}
	nc := &kbgpv1.BGPNodeConfig{}
	if err := server.Client.Get(ctx, types.NamespacedName{Name: node}, nc); err != nil {
		t.Fatal(err)
	}
	cond := status.NotReportingCondition(l, nc.Generation, time.Now())
	c, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&cond)
	if err != nil {
		t.Fatal(err)
	}
	patch := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": kbgpv1.GroupVersion.String(), "kind": "BGPNodeConfig",
		"metadata": map[string]any{"name": node}, "status": map[string]any{"conditions": []any{c}},
	}}
	if err := server.Client.Status().Patch(ctx, patch, client.Apply, client.FieldOwner("kbgp-operator-liveness"), client.ForceOwnership); err != nil {
		t.Fatal(err)
	}
	if c := ready(); c == nil || c.Reason != kbgpv1.ReasonAgentNotReporting {
		t.Fatalf("Ready after the mark = %+v", c)
	}
	// The agent renews every 10 s.
	wait.Eventually(t, 30*time.Second, "the agent's own Ready back after a renewal", func() bool {
		c := ready()
		return c != nil && c.Status == metav1.ConditionTrue && c.Reason == kbgpv1.ReasonConfigurationSuccessful
	})
}
