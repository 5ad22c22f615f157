package operator_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/operator"
)

// TestUnrelatedEventsMakeNoWrites: node heartbeats and annotations, the agent's status
// writes, other nodes' labels and an unreferenced peer config change nothing the
// operator renders, so they must cost zero writes.
func TestUnrelatedEventsMakeNoWrites(t *testing.T) {
	ctx := context.Background()
	op := startOperator(t, operator.Options{})
	createNode(t, "quiet-1", map[string]string{"rack": "quiet"})
	createNode(t, "quiet-other", map[string]string{"rack": "elsewhere"})
	createObject(t, clusterConfig("quiet", "quiet", ""))
	nodeConfigFrom(t, "quiet-1", "quiet")
	conditionOf(t, "quiet", "Ready", metav1.ConditionTrue)
	time.Sleep(time.Second)
	settled := op.writes.Count()

	patch := func(obj client.Object, body string, status bool) {
		t.Helper()
		p := client.RawPatch(types.MergePatchType, []byte(body))
		var err error
		if status {
			err = server.Client.Status().Patch(ctx, obj, p)
		} else {
			err = server.Client.Patch(ctx, obj, p)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "quiet-1"}}
	patch(node, `{"metadata":{"annotations":{"example.com/note":"x"}}}`, false)
	patch(node, `{"status":{"conditions":[{"type":"Ready","status":"True","reason":"KubeletReady","lastHeartbeatTime":"2026-11-23T00:00:00Z","lastTransitionTime":"2026-11-23T00:00:00Z"}]}}`, true)
	patch(&kbgpv1.BGPNodeConfig{ObjectMeta: metav1.ObjectMeta{Name: "quiet-1"}}, `{"status":{"observedGeneration":1}}`, true)
	setNodeLabels(t, "quiet-other", map[string]string{"rack": "elsewhere", "zone": "z9"})
	createObject(t, &kbgpv1.BGPPeerConfig{ObjectMeta: metav1.ObjectMeta{Name: "quiet-unreferenced"}})

	time.Sleep(3 * time.Second)
	if got := op.writes.Count() - settled; got != 0 {
		t.Fatalf("unrelated events caused %d writes: %v", got, op.writes.Writes()[settled:])
	}
}
