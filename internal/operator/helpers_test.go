package operator_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/operator"
	"kbgp.io/kbgp/test/apiserver"
)

// runningOperator is an operator manager started by a test.
type runningOperator struct {
	writes  *apiserver.WriteCounter
	elected <-chan struct{}
	stop    func()
}

// startOperator runs an operator against the test API server until stop or the end of
// the test. Its kbgp writes are counted.
func startOperator(t *testing.T, o operator.Options) *runningOperator {
	t.Helper()
	return startOperatorWithConfig(t, server.Config, o)
}

// startOperatorWithConfig runs an operator with the given identity.
func startOperatorWithConfig(t *testing.T, base *rest.Config, o operator.Options) *runningOperator {
	t.Helper()
	cfg, writes := apiserver.CountingConfig(base)
	o.MetricsAddress, o.HealthProbeAddress = "0", "0"
	o.InProcessReplica = true
	if o.NodeConfigWorkers == 0 {
		o.NodeConfigWorkers = 4
	}
	mgr, err := operator.NewManager(cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-done; err != nil {
			t.Errorf("operator stopped with error: %v", err)
		}
	}
	t.Cleanup(stop)
	return &runningOperator{writes: writes, elected: mgr.Elected(), stop: stop}
}

// eventually polls cond every 100 ms until it returns nil or the timeout passes.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var err error
	for time.Now().Before(deadline) {
		if err = cond(); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("timed out after %s waiting for %s: %v", timeout, what, err)
}

func createNode(t *testing.T, name string, labels map[string]string) *corev1.Node {
	t.Helper()
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
	if err := server.Client.Create(context.Background(), n); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = server.Client.Delete(context.Background(), n) })
	return n
}

func setNodeLabels(t *testing.T, name string, labels map[string]string) {
	t.Helper()
	patch := client.RawPatch(types.MergePatchType, []byte(fmt.Sprintf(`{"metadata":{"labels":%s}}`, mustJSON(labels))))
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := server.Client.Patch(context.Background(), n, patch); err != nil {
		t.Fatal(err)
	}
}

func createObject(t *testing.T, obj client.Object) {
	t.Helper()
	if err := server.Client.Create(context.Background(), obj); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = server.Client.Delete(context.Background(), obj) })
}

func deleteObject(t *testing.T, obj client.Object) {
	t.Helper()
	if err := server.Client.Delete(context.Background(), obj); err != nil {
		t.Fatal(err)
	}
}

// clusterConfig selects nodes labelled rack=<rack> and peers with one router whose
// settings come from the BGPPeerConfig peerConfig (may be empty).
func clusterConfig(name, rack, peerConfig string) *kbgpv1.BGPClusterConfig {
	peer := kbgpv1.BGPPeer{Name: "tor-a", PeerAddress: "10.1.1.1", PeerASN: 65002}
	if peerConfig != "" {
		peer.PeerConfigRef = &kbgpv1.PeerConfigReference{Name: peerConfig}
	}
	return &kbgpv1.BGPClusterConfig{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: kbgpv1.BGPClusterConfigSpec{
			NodeSelector: &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"rack": kbgpv1.LabelValue(rack)}},
			BGPInstances: []kbgpv1.BGPInstance{{
				BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: 65001},
				Peers:               []kbgpv1.BGPPeer{peer},
			}},
		},
	}
}

func getNodeConfig(name string) (*kbgpv1.BGPNodeConfig, error) {
	nc := &kbgpv1.BGPNodeConfig{}
	err := server.Client.Get(context.Background(), types.NamespacedName{Name: name}, nc)
	return nc, err
}

// nodeConfigFrom waits until node's config exists and was rendered from clusterConfig.
func nodeConfigFrom(t *testing.T, node, clusterConfig string) *kbgpv1.BGPNodeConfig {
	t.Helper()
	var nc *kbgpv1.BGPNodeConfig
	eventually(t, 20*time.Second, "BGPNodeConfig "+node+" from "+clusterConfig, func() error {
		var err error
		if nc, err = getNodeConfig(node); err != nil {
			return err
		}
		if got := nc.Labels[kbgpv1.ClusterConfigLabel]; got != clusterConfig {
			return fmt.Errorf("rendered from %q", got)
		}
		return nil
	})
	return nc
}

func noNodeConfig(t *testing.T, node string) {
	t.Helper()
	eventually(t, 20*time.Second, "no BGPNodeConfig "+node, func() error {
		if _, err := getNodeConfig(node); !apierrors.IsNotFound(err) {
			return fmt.Errorf("still there (err %v)", err)
		}
		return nil
	})
}

// conditionOf waits until the cluster config has the condition with status.
func conditionOf(t *testing.T, cc, typ string, status metav1.ConditionStatus) metav1.Condition {
	t.Helper()
	var found metav1.Condition
	eventually(t, 20*time.Second, fmt.Sprintf("%s %s=%s", cc, typ, status), func() error {
		var obj kbgpv1.BGPClusterConfig
		if err := server.Client.Get(context.Background(), types.NamespacedName{Name: cc}, &obj); err != nil {
			return err
		}
		c := meta.FindStatusCondition(obj.Status.Conditions, typ)
		if c == nil {
			return errors.New("condition not set")
		}
		if c.Status != status {
			return fmt.Errorf("%s: %s", c.Status, c.Message)
		}
		if c.ObservedGeneration != obj.Generation {
			return fmt.Errorf("observedGeneration %d, generation %d", c.ObservedGeneration, obj.Generation)
		}
		found = *c
		return nil
	})
	return found
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// updateClusterConfig applies change to the latest version of a cluster config,
// retrying on conflicts with the operator's status writes.
func updateClusterConfig(t *testing.T, name string, change func(*kbgpv1.BGPClusterConfig)) {
	t.Helper()
	eventually(t, 10*time.Second, "update of "+name, func() error {
		var cc kbgpv1.BGPClusterConfig
		if err := server.Client.Get(context.Background(), types.NamespacedName{Name: name}, &cc); err != nil {
			return err
		}
		change(&cc)
		return server.Client.Update(context.Background(), &cc)
	})
}
