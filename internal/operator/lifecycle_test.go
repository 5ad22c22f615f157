package operator_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/operator"
)

// TestGarbageCollectionAndRecreatedNode deletes a node with the real garbage collector
// running and the operator stopped, so only the owner reference can remove the config;
// then a node re-created under the same name gets a config owned by the new uid.
func TestGarbageCollectionAndRecreatedNode(t *testing.T) {
	stopGC, err := server.StartGarbageCollector(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stopGC)
	op := startOperator(t, operator.Options{})
	node := createNode(t, "gc-1", map[string]string{"rack": "gc"})
	createObject(t, clusterConfig("gc", "gc", ""))
	nodeConfigFrom(t, "gc-1", "gc")

	op.stop()
	if err := server.Client.Delete(context.Background(), node); err != nil {
		t.Fatal(err)
	}
	noNodeConfig(t, "gc-1")

	startOperator(t, operator.Options{})
	again := createNode(t, "gc-1", map[string]string{"rack": "gc"})
	if again.UID == node.UID {
		t.Fatal("re-created node kept its uid")
	}
	eventually(t, 20*time.Second, "config owned by the new node", func() error {
		nc, err := getNodeConfig("gc-1")
		if err != nil {
			return err
		}
		if len(nc.OwnerReferences) != 1 || nc.OwnerReferences[0].UID != again.UID {
			return fmt.Errorf("owners %+v", nc.OwnerReferences)
		}
		return nil
	})
}

// reconcileCount reads controller-runtime's reconcile counter of a controller.
func reconcileCount(t *testing.T, controller string) float64 {
	t.Helper()
	families, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var total float64
	for _, f := range families {
		if f.GetName() != "controller_runtime_reconcile_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			if labelValue(m, "controller") == controller {
				total += m.GetCounter().GetValue()
			}
		}
	}
	return total
}

func labelValue(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// TestNoOpResyncMakesZeroWrites renders 500 nodes, then starts a fresh operator that
// reconciles all of them again from its initial list: it must write nothing.
func TestNoOpResyncMakesZeroWrites(t *testing.T) {
	const nodes = 500
	ctx := context.Background()
	for i := range nodes {
		createNode(t, fmt.Sprintf("resync-%03d", i), map[string]string{"rack": "resync"})
	}
	createObject(t, clusterConfig("resync", "resync", ""))
	first := startOperator(t, operator.Options{})
	eventually(t, 60*time.Second, "500 node configs", func() error {
		var list kbgpv1.BGPNodeConfigList
		if err := server.Client.List(ctx, &list, client.MatchingLabels{kbgpv1.ClusterConfigLabel: "resync"}); err != nil {
			return err
		}
		if len(list.Items) != nodes {
			return fmt.Errorf("%d node configs", len(list.Items))
		}
		return nil
	})
	conditionOf(t, "resync", "Ready", metav1.ConditionTrue)
	first.stop()
	if got := first.writes.Count(); got < nodes {
		t.Fatalf("first operator made %d writes for %d new node configs", got, nodes)
	}

	before := reconcileCount(t, "nodeconfig")
	second := startOperator(t, operator.Options{})
	eventually(t, 60*time.Second, "the resync to reconcile every node", func() error {
		if got := reconcileCount(t, "nodeconfig") - before; got < nodes {
			return fmt.Errorf("%v reconciles", got)
		}
		return nil
	})
	// Let anything the resync queued finish before counting.
	time.Sleep(2 * time.Second)
	if got := second.writes.Count(); got != 0 {
		t.Fatalf("a no-op resync of %d nodes made %d writes: %v", nodes, got, second.writes.Writes()[:min(got, 10)])
	}
	for i := range nodes {
		_ = server.Client.Delete(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("resync-%03d", i)}})
	}
}

// TestLeaderHandover runs two replicas with leader election: only the leader writes,
// and when it stops the other takes over without rewriting what is already right.
func TestLeaderHandover(t *testing.T) {
	opts := leaderElected()
	a := startOperator(t, opts)
	waitElected(t, a, "first replica")
	b := startOperator(t, opts)

	createNode(t, "ha-1", map[string]string{"rack": "ha"})
	createNode(t, "ha-2", map[string]string{"rack": "ha"})
	createObject(t, clusterConfig("ha", "ha", ""))
	nodeConfigFrom(t, "ha-1", "ha")
	nodeConfigFrom(t, "ha-2", "ha")
	conditionOf(t, "ha", "Ready", metav1.ConditionTrue)
	if a.writes.Count() == 0 {
		t.Fatal("the leader wrote nothing")
	}
	select {
	case <-b.elected:
		t.Fatal("both replicas are leaders")
	default:
	}
	if got := b.writes.Count(); got != 0 {
		t.Fatalf("the standby wrote %d times: %v", got, b.writes.Writes())
	}

	a.stop()
	waitElected(t, b, "standby after the leader stopped")
	before := reconcileCount(t, "nodeconfig")
	eventually(t, 20*time.Second, "the new leader to resync", func() error {
		if reconcileCount(t, "nodeconfig")-before < 2 {
			return fmt.Errorf("not yet")
		}
		return nil
	})
	time.Sleep(time.Second)
	if got := b.writes.Count(); got != 0 {
		t.Fatalf("the new leader rewrote %d objects that were already right: %v", got, b.writes.Writes())
	}

	// It does write real changes.
	updateClusterConfig(t, "ha", func(cc *kbgpv1.BGPClusterConfig) { cc.Spec.BGPInstances[0].Peers[0].PeerASN = 65077 })
	eventually(t, 20*time.Second, "the new leader to render the change", func() error {
		nc, err := getNodeConfig("ha-1")
		if err != nil {
			return err
		}
		if nc.Spec.BGPInstances[0].Peers[0].PeerASN != 65077 {
			return fmt.Errorf("not rendered")
		}
		return nil
	})
}

// leaderElected are the options of a replica in a leader-election test. A stopped
// leader releases its Lease, so the standby takes over within RetryPeriod; the Lease
// duration and renew deadline only bound how long a renewal may take. They are wide
// enough for an API server that the whole test suite shares on two cores: with a 1.5 s
// deadline (and controller-runtime's 1 s timeout on each request) one CI run saw the
// new leader lose its Lease, and no replica was left to finish the work.
func leaderElected() operator.Options {
	return operator.Options{
		LeaderElect: true, LeaderElectionNamespace: "default",
		LeaseDuration: 10 * time.Second, RenewDeadline: 8 * time.Second, RetryPeriod: 200 * time.Millisecond,
	}
}

func waitElected(t *testing.T, op *runningOperator, who string) {
	t.Helper()
	select {
	case <-op.elected:
	case <-time.After(30 * time.Second):
		t.Fatalf("%s never became leader", who)
	}
}
