package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/test/e2e/netlab"
)

// TestListenerBindsOnlyItsAddresses checks the real socket with ss in the node's
// namespace: with localPort set and no listenAddresses the BGP listener is bound to
// the Node's InternalIP only — not to every address of the node — and with
// listenAddresses to exactly those.
func TestListenerBindsOnlyItsAddresses(t *testing.T) {
	independent(t)
	lab := netlab.New(t)
	node := lab.Namespace("node")
	nodeName := "e2e-listen-" + strings.Trim(lab.Prefix(), "-")
	inside, outside := lab.Namespace("inside"), lab.Namespace("outside")
	lab.Link(node, "to-inside", []string{"10.89.0.1/30"}, inside, "to-node", []string{"10.89.0.2/30"})
	lab.Link(node, "to-outside", []string{"10.89.1.1/30"}, outside, "to-node", []string{"10.89.1.2/30"})
	ensureNamespace(t)
	nc := &kbgpv1.BGPNodeConfig{ObjectMeta: metav1.ObjectMeta{Name: nodeName}, Spec: kbgpv1.BGPNodeConfigSpec{BGPInstances: []kbgpv1.BGPNodeInstance{{
		BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: 65001, RouterID: routerID, LocalPort: ptr.To[int32](1790)},
		Peers:               []kbgpv1.BGPNodePeer{{BGPPeer: kbgpv1.BGPPeer{Name: "tor", PeerAddress: "10.89.0.2", PeerASN: 65002}}},
	}}}}
	create(t, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: nodeName},
		Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.89.0.1"}, {Type: corev1.NodeExternalIP, Address: "10.89.1.1"}}}}, nc)
	startAgent(t, lab, node, nodeName)

	listeners := func() []string {
		out, err := node.Exec("ss", "-Hltn", "sport = :1790")
		if err != nil {
			t.Fatalf("ss: %v: %s", err, out)
		}
		var local []string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			if f := strings.Fields(line); len(f) >= 4 {
				local = append(local, f[3])
			}
		}
		slices.Sort(local)
		return local
	}
	waitListeners := func(want ...string) {
		t.Helper()
		netlab.WaitFor(t, sessionTimeout, 300*time.Millisecond, func() (bool, string) {
			got := listeners()
			return slices.Equal(got, want), fmt.Sprintf("listeners on port 1790: %v, want %v", got, want)
		})
		t.Logf("ss: listening on %v", want)
	}
	waitListeners("10.89.0.1:1790")

	update(t, nc, func(nc *kbgpv1.BGPNodeConfig) {
		nc.Spec.BGPInstances[0].ListenAddresses = []kbgpv1.IPAddress{"10.89.1.1"}
	})
	waitListeners("10.89.1.1:1790")
}
