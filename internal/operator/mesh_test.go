package operator_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/operator"
)

// TestMeshFollowsNodes: a meshed cluster config renders into each node the others'
// InternalIPs, and the peers follow nodes joining, readdressing and leaving.
func TestMeshFollowsNodes(t *testing.T) {
	startOperator(t, operator.Options{})
	for i := 1; i <= 3; i++ {
		createNode(t, fmt.Sprintf("mesh-%d", i), map[string]string{"rack": "mesh"})
		setNodeInternalIP(t, fmt.Sprintf("mesh-%d", i), fmt.Sprintf("10.40.0.%d", i))
	}
	cc := clusterConfig("mesh", "mesh", "")
	cc.Spec.BGPInstances[0].LocalPort = new(int32(179))
	cc.Spec.BGPInstances[0].Mesh = &kbgpv1.BGPMesh{Enabled: true, PeerConfigRef: &kbgpv1.PeerConfigReference{Name: "mesh"}}
	createObject(t, cc)

	waitMeshPeers(t, "mesh-1", "mesh-mesh-2-v4 10.40.0.1>10.40.0.2", "mesh-mesh-3-v4 10.40.0.1>10.40.0.3")
	waitMeshPeers(t, "mesh-3", "mesh-mesh-1-v4 10.40.0.3>10.40.0.1 passive", "mesh-mesh-2-v4 10.40.0.3>10.40.0.2 passive")
	nc, _ := getNodeConfig("mesh-1")
	if got := nc.Spec.BGPInstances[0].Peers; len(got) != 1 || got[0].Name != "tor-a" {
		t.Errorf("the instance's own peers changed: %+v", got)
	}
	if ref := nc.Spec.BGPInstances[0].Mesh.PeerConfigRef; ref == nil || ref.Name != "mesh" {
		t.Errorf("mesh peer config %+v, want mesh", ref)
	}

	// A node labelled into the config joins every mesh.
	createNode(t, "mesh-4", map[string]string{"rack": "other"})
	setNodeInternalIP(t, "mesh-4", "10.40.0.4")
	setNodeLabels(t, "mesh-4", map[string]string{"rack": "mesh"})
	waitMeshPeers(t, "mesh-1", "mesh-mesh-2-v4 10.40.0.1>10.40.0.2", "mesh-mesh-3-v4 10.40.0.1>10.40.0.3", "mesh-mesh-4-v4 10.40.0.1>10.40.0.4")
	waitMeshPeers(t, "mesh-4", "mesh-mesh-1-v4 10.40.0.4>10.40.0.1 passive", "mesh-mesh-2-v4 10.40.0.4>10.40.0.2 passive", "mesh-mesh-3-v4 10.40.0.4>10.40.0.3 passive")

	// A new address moves the node's sessions on every other node.
	setNodeInternalIP(t, "mesh-2", "10.40.0.20")
	waitMeshPeers(t, "mesh-1", "mesh-mesh-2-v4 10.40.0.1>10.40.0.20", "mesh-mesh-3-v4 10.40.0.1>10.40.0.3", "mesh-mesh-4-v4 10.40.0.1>10.40.0.4")

	// Labelled out, it leaves.
	setNodeLabels(t, "mesh-4", map[string]string{"rack": "other"})
	waitMeshPeers(t, "mesh-1", "mesh-mesh-2-v4 10.40.0.1>10.40.0.20", "mesh-mesh-3-v4 10.40.0.1>10.40.0.3")
	noNodeConfig(t, "mesh-4")

	// Deleted, too.
	deleteObject(t, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "mesh-3"}})
	waitMeshPeers(t, "mesh-1", "mesh-mesh-2-v4 10.40.0.1>10.40.0.20")
}

func setNodeInternalIP(t *testing.T, name, addr string) {
	t.Helper()
	n := &corev1.Node{}
	if err := server.Client.Get(context.Background(), client.ObjectKey{Name: name}, n); err != nil {
		t.Fatal(err)
	}
	n.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: addr}, {Type: corev1.NodeHostName, Address: name}}
	if err := server.Client.Status().Update(context.Background(), n); err != nil {
		t.Fatal(err)
	}
}

// waitMeshPeers waits until node's config has exactly the mesh peers want, each
// "name local>remote" with " passive" when it waits for the other node.
func waitMeshPeers(t *testing.T, node string, want ...string) {
	t.Helper()
	eventually(t, 20*time.Second, "mesh peers of "+node, func() error {
		nc, err := getNodeConfig(node)
		if err != nil {
			return err
		}
		var got []string
		if m := nc.Spec.BGPInstances[0].Mesh; m != nil {
			for _, p := range m.Peers {
				s := p.Name + " " + p.LocalAddress + ">" + p.PeerAddress
				if p.Passive {
					s += " passive"
				}
				got = append(got, s)
			}
		}
		if !slices.Equal(got, want) {
			return fmt.Errorf("mesh peers (-want +got):\n%s", cmp.Diff(want, got))
		}
		return nil
	})
}
