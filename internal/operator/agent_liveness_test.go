package operator_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/contract"
	"kbgp.io/kbgp/internal/operator"
	"kbgp.io/kbgp/internal/status"
)

// TestSilentAgentMarksReadyUnknown: a node whose agent Lease expires gets
// Ready=Unknown (AgentNotReporting) with a Warning event, while its other conditions
// stay as the agent wrote them; a node whose agent keeps renewing is left alone.
func TestSilentAgentMarksReadyUnknown(t *testing.T) {
	ctx := context.Background()
	const ns = "liveness-agents"
	if err := server.EnsureNamespace(ctx, ns); err != nil {
		t.Fatal(err)
	}
	startOperator(t, operator.Options{AgentNamespace: ns})
	createNode(t, "live-1", map[string]string{"rack": "live"})
	createNode(t, "silent-1", map[string]string{"rack": "live"})
	createObject(t, clusterConfig("live", "live", ""))
	for _, node := range []string{"live-1", "silent-1"} {
		nodeConfigFrom(t, node, "live")
		writeAgentReady(t, node)
	}

	// silent-1's agent last renewed 100 s ago with a 40 s Lease; live-1's renews now and
	// its Lease is checked again when it would expire.
	createObject(t, agentLease(ns, "silent-1", time.Now().Add(-100*time.Second)))
	createObject(t, agentLease(ns, "live-1", time.Now()))

	eventually(t, 20*time.Second, "silent-1 Ready=Unknown AgentNotReporting", func() error {
		nc, err := getNodeConfig("silent-1")
		if err != nil {
			return err
		}
		ready := meta.FindStatusCondition(nc.Status.Conditions, kbgpv1.ConditionReady)
		if ready == nil || ready.Status != metav1.ConditionUnknown || ready.Reason != kbgpv1.ReasonAgentNotReporting {
			return fmt.Errorf("Ready = %+v", ready)
		}
		if ready.ObservedGeneration != nc.Generation {
			return fmt.Errorf("observedGeneration %d, generation %d", ready.ObservedGeneration, nc.Generation)
		}
		if d := meta.FindStatusCondition(nc.Status.Conditions, kbgpv1.ConditionDegraded); d == nil || d.Status != metav1.ConditionFalse {
			return fmt.Errorf("the agent's Degraded condition was not kept: %+v", d)
		}
		return nil
	})
	eventually(t, 20*time.Second, "an AgentNotReporting event about silent-1", func() error {
		events := &corev1.EventList{}
		if err := server.Client.List(ctx, events, client.InNamespace(metav1.NamespaceDefault)); err != nil {
			return err
		}
		for _, e := range events.Items {
			if e.InvolvedObject.Name == "silent-1" && e.Reason == kbgpv1.ReasonAgentNotReporting {
				return nil
			}
		}
		return fmt.Errorf("none among %d events", len(events.Items))
	})
	nc, err := getNodeConfig("live-1")
	if err != nil {
		t.Fatal(err)
	}
	if status.MarkedNotReporting(nc.Status.Conditions) {
		t.Errorf("live-1 marked not reporting while its agent renews its Lease")
	}
}

// writeAgentReady writes the status an agent writes: Ready and Degraded.
func writeAgentReady(t *testing.T, node string) {
	t.Helper()
	nc, err := getNodeConfig(node)
	if err != nil {
		t.Fatal(err)
	}
	meta.SetStatusCondition(&nc.Status.Conditions, metav1.Condition{Type: kbgpv1.ConditionReady, Status: metav1.ConditionTrue, Reason: kbgpv1.ReasonConfigurationSuccessful, ObservedGeneration: nc.Generation})
	meta.SetStatusCondition(&nc.Status.Conditions, metav1.Condition{Type: kbgpv1.ConditionDegraded, Status: metav1.ConditionFalse, Reason: kbgpv1.ReasonConfigurationSuccessful, ObservedGeneration: nc.Generation})
	if err := server.Client.Status().Update(context.Background(), nc, client.FieldOwner("kbgp-agent")); err != nil {
		t.Fatal(err)
	}
}

func agentLease(namespace, node string, renewed time.Time) *coordinationv1.Lease {
	return &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: contract.AgentLeaseName(node)},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity: new(node), LeaseDurationSeconds: new(int32(40)),
			RenewTime: &metav1.MicroTime{Time: renewed},
		},
	}
}
