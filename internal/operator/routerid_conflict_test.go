package operator_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/operator"
)

// setResolvedRouterID writes a node config's status as its agent would.
func setResolvedRouterID(t *testing.T, node, routerID string) {
	t.Helper()
	eventually(t, 10*time.Second, "status of "+node, func() error {
		nc, err := getNodeConfig(node)
		if err != nil {
			return err
		}
		nc.Status.BGPInstances = []kbgpv1.BGPNodeInstanceStatus{{LocalASN: 65001, RouterID: routerID,
			RouterIDSource: kbgpv1.RouterIDSourceHash, RouterIDNode: node}}
		return server.Client.Status().Update(context.Background(), nc)
	})
}

// TestRouterIDConflict: two nodes whose agents resolved the same router ID raise
// RouterIDConflict on the cluster config and a Warning event on each node config.
func TestRouterIDConflict(t *testing.T) {
	startOperator(t, operator.Options{})
	createNode(t, "rid-1", map[string]string{"rack": "rid"})
	createNode(t, "rid-2", map[string]string{"rack": "rid"})
	createObject(t, clusterConfig("rid", "rid", ""))
	nodeConfigFrom(t, "rid-1", "rid")
	nodeConfigFrom(t, "rid-2", "rid")
	conditionOf(t, "rid", "RouterIDConflict", metav1.ConditionFalse)

	setResolvedRouterID(t, "rid-1", "10.255.166.39")
	setResolvedRouterID(t, "rid-2", "10.255.166.39")
	c := conditionOf(t, "rid", "RouterIDConflict", metav1.ConditionTrue)
	want := "router ID 10.255.166.39 of instance 65001 is used by nodes rid-1, rid-2"
	if c.Message != want {
		t.Errorf("message %q, want %q", c.Message, want)
	}
	conditionOf(t, "rid", "Ready", metav1.ConditionFalse)
	for _, node := range []string{"rid-1", "rid-2"} {
		eventually(t, 10*time.Second, "RouterIDConflict event on "+node, func() error {
			var events corev1.EventList
			if err := server.Client.List(context.Background(), &events, client.InNamespace("default")); err != nil {
				return err
			}
			for _, e := range events.Items {
				if e.InvolvedObject.Kind == "BGPNodeConfig" && e.InvolvedObject.Name == node &&
					e.Reason == "RouterIDConflict" && strings.Contains(e.Message, want) {
					return nil
				}
			}
			return fmt.Errorf("no event among %d", len(events.Items))
		})
	}

	setResolvedRouterID(t, "rid-2", "10.255.0.7")
	conditionOf(t, "rid", "RouterIDConflict", metav1.ConditionFalse)
	conditionOf(t, "rid", "Ready", metav1.ConditionTrue)
}
