package operator_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/operator"
)

func TestSelectorChangesAddAndRemoveNodeConfigs(t *testing.T) {
	startOperator(t, operator.Options{})
	n1 := createNode(t, "sel-1", map[string]string{"rack": "sel-a"})
	createNode(t, "sel-2", map[string]string{"rack": "sel-b"})
	createObject(t, &kbgpv1.BGPPeerConfig{ObjectMeta: metav1.ObjectMeta{Name: "sel-tor"}})
	cc := clusterConfig("sel", "sel-a", "sel-tor")
	createObject(t, cc)

	nc := nodeConfigFrom(t, "sel-1", "sel")
	wantOwner := []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: "sel-1", UID: n1.UID, BlockOwnerDeletion: new(false)}}
	if diff := cmp.Diff(wantOwner, nc.OwnerReferences); diff != "" {
		t.Errorf("owner reference (-want +got):\n%s", diff)
	}
	if got := nc.Spec.BGPInstances[0].Peers[0].PeerConfigRef.Name; got != "sel-tor" {
		t.Errorf("peerConfigRef %q, want the reference kept", got)
	}
	noNodeConfig(t, "sel-2")
	conditionOf(t, "sel", "Ready", metav1.ConditionTrue)

	// A node label change selects the second node.
	setNodeLabels(t, "sel-2", map[string]string{"rack": "sel-a"})
	nodeConfigFrom(t, "sel-2", "sel")

	// A selector change moves the config to the nodes it now selects.
	setNodeLabels(t, "sel-2", map[string]string{"rack": "sel-b"})
	noNodeConfig(t, "sel-2")
	updateClusterConfig(t, "sel", func(cc *kbgpv1.BGPClusterConfig) { cc.Spec.NodeSelector.MatchLabels["rack"] = "sel-b" })
	nodeConfigFrom(t, "sel-2", "sel")
	noNodeConfig(t, "sel-1")

	// A config edit re-renders the selected node.
	updateClusterConfig(t, "sel", func(cc *kbgpv1.BGPClusterConfig) { cc.Spec.BGPInstances[0].Peers[0].PeerASN = 65099 })
	eventually(t, 20*time.Second, "re-render with the new peer ASN", func() error {
		nc, err := getNodeConfig("sel-2")
		if err != nil {
			return err
		}
		if got := nc.Spec.BGPInstances[0].Peers[0].PeerASN; got != 65099 {
			return fmt.Errorf("peerASN %d", got)
		}
		return nil
	})

	// Deleting the config deletes what it rendered.
	deleteObject(t, cc)
	noNodeConfig(t, "sel-2")
}

func TestOverrides(t *testing.T) {
	startOperator(t, operator.Options{})
	createNode(t, "ovr-1", map[string]string{"rack": "ovr"})
	createObject(t, clusterConfig("ovr", "ovr", ""))
	nodeConfigFrom(t, "ovr-1", "ovr")

	override := func(name, routerID string, asn int64) *kbgpv1.BGPNodeConfigOverride {
		return &kbgpv1.BGPNodeConfigOverride{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: kbgpv1.BGPNodeConfigOverrideSpec{NodeRef: "ovr-1", BGPInstances: []kbgpv1.BGPInstanceOverride{{
				LocalASN: asn, RouterID: kbgpv1.IPv4RouterID(routerID), LocalPort: new(int32(1790)),
				Peers: []kbgpv1.BGPPeerOverride{{Name: "tor-a", PeerLocalEndpoint: kbgpv1.PeerLocalEndpoint{LocalAddress: "10.1.1.10"}}},
			}}},
		}
	}
	b := override("ovr-b", "10.0.0.2", 65001)
	createObject(t, b)
	waitRouterID(t, "ovr-1", "10.0.0.2")
	nc, _ := getNodeConfig("ovr-1")
	inst := nc.Spec.BGPInstances[0]
	if *inst.LocalPort != 1790 || inst.Peers[0].LocalAddress != "10.1.1.10" {
		t.Fatalf("override not applied: %+v", inst)
	}

	// A second override for the node: the alphabetically first applies, the other is
	// listed in failedResources.
	a := override("ovr-a", "10.0.0.1", 65001)
	createObject(t, a)
	waitRouterID(t, "ovr-1", "10.0.0.1")
	waitFailed(t, "ovr-1", []kbgpv1.FailedResource{{Kind: "BGPNodeConfigOverride", Name: "ovr-b",
		Message: "ignored: override ovr-a also targets this node and applies (the alphabetically first wins)"}})

	// Removing it resolves the conflict.
	deleteObject(t, a)
	waitRouterID(t, "ovr-1", "10.0.0.2")
	waitFailed(t, "ovr-1", nil)

	// An override naming an instance the node does not run is reported, not dropped
	// silently.
	deleteObject(t, b)
	createObject(t, override("ovr-c", "10.0.0.3", 65077))
	waitFailed(t, "ovr-1", []kbgpv1.FailedResource{{Kind: "BGPNodeConfigOverride", Name: "ovr-c",
		Message: "instance with localASN 65077 is not in the node's cluster config"}})
	waitRouterID(t, "ovr-1", "")
}

func waitRouterID(t *testing.T, node, want string) {
	t.Helper()
	eventually(t, 20*time.Second, node+" routerID "+want, func() error {
		nc, err := getNodeConfig(node)
		if err != nil {
			return err
		}
		if got := nc.Spec.BGPInstances[0].RouterID; got != want {
			return fmt.Errorf("routerID %q", got)
		}
		return nil
	})
}

func waitFailed(t *testing.T, node string, want []kbgpv1.FailedResource) {
	t.Helper()
	eventually(t, 20*time.Second, node+" failedResources", func() error {
		nc, err := getNodeConfig(node)
		if err != nil {
			return err
		}
		if diff := cmp.Diff(want, nc.Status.FailedResources, cmpopts.EquateEmpty()); diff != "" {
			return fmt.Errorf("(-want +got):\n%s", diff)
		}
		return nil
	})
}

func TestConflictingClusterConfigs(t *testing.T) {
	startOperator(t, operator.Options{})
	createNode(t, "cfl-1", map[string]string{"rack": "cfl"})
	createNode(t, "cfl-2", map[string]string{"rack": "cfl", "edge": "yes"})
	older := clusterConfig("cfl-old", "cfl", "")
	createObject(t, older)
	nodeConfigFrom(t, "cfl-1", "cfl-old")

	// creationTimestamp has one-second resolution and equal ages fall back to name
	// order (which would favour cfl-new): make the newer config clearly newer.
	time.Sleep(1100 * time.Millisecond)
	newer := clusterConfig("cfl-new", "cfl", "")
	createObject(t, newer)
	c := conditionOf(t, "cfl-new", "ConflictingClusterConfigs", metav1.ConditionTrue)
	for _, n := range []string{"cfl-1 (runs cfl-old)", "cfl-2 (runs cfl-old)"} {
		if !strings.Contains(c.Message, n) {
			t.Errorf("conflict message does not name %s: %s", n, c.Message)
		}
	}
	conditionOf(t, "cfl-new", "Ready", metav1.ConditionFalse)
	conditionOf(t, "cfl-old", "ConflictingClusterConfigs", metav1.ConditionFalse)
	nodeConfigFrom(t, "cfl-2", "cfl-old")

	// The conflict resolves when the winner goes away.
	deleteObject(t, older)
	nodeConfigFrom(t, "cfl-1", "cfl-new")
	nodeConfigFrom(t, "cfl-2", "cfl-new")
	conditionOf(t, "cfl-new", "ConflictingClusterConfigs", metav1.ConditionFalse)
	conditionOf(t, "cfl-new", "Ready", metav1.ConditionTrue)
}

func TestMissingPeerConfigsAndNoMatchingNodes(t *testing.T) {
	startOperator(t, operator.Options{})
	createObject(t, clusterConfig("mpc", "mpc", "mpc-tor"))
	conditionOf(t, "mpc", "NoMatchingNodes", metav1.ConditionTrue)
	c := conditionOf(t, "mpc", "MissingPeerConfigs", metav1.ConditionTrue)
	if !strings.Contains(c.Message, "mpc-tor") {
		t.Errorf("message does not name the missing peer config: %s", c.Message)
	}
	createNode(t, "mpc-1", map[string]string{"rack": "mpc"})
	conditionOf(t, "mpc", "NoMatchingNodes", metav1.ConditionFalse)
	conditionOf(t, "mpc", "Ready", metav1.ConditionFalse)
	// The node still gets its config: the agent reports the missing reference for its
	// peer while the rest runs.
	nodeConfigFrom(t, "mpc-1", "mpc")

	createObject(t, &kbgpv1.BGPPeerConfig{ObjectMeta: metav1.ObjectMeta{Name: "mpc-tor"}})
	conditionOf(t, "mpc", "MissingPeerConfigs", metav1.ConditionFalse)
	conditionOf(t, "mpc", "Ready", metav1.ConditionTrue)
}
