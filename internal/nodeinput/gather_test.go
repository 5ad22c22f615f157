package nodeinput

import (
	"context"
	"maps"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/contract"
)

// TestForNodeReadsWhatTheNodeReferences: only the peer configs the node's peers name
// and the Secrets those name are read, each once, keyed by the referencing name; a
// missing one is absent for intent.Build to report; slices are grouped by Service.
func TestForNodeReadsWhatTheNodeReferences(t *testing.T) {
	scheme, err := contract.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	ref := func(name string) *kbgpv1.PeerConfigReference { return &kbgpv1.PeerConfigReference{Name: name} }
	nc := &kbgpv1.BGPNodeConfig{ObjectMeta: metav1.ObjectMeta{Name: "worker-1"}, Spec: kbgpv1.BGPNodeConfigSpec{BGPInstances: []kbgpv1.BGPNodeInstance{{
		BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: 65001},
		Peers: []kbgpv1.BGPNodePeer{
			{BGPPeer: kbgpv1.BGPPeer{Name: "a", PeerAddress: "10.0.0.1", PeerASN: 65002, PeerConfigRef: ref("tor")}},
			{BGPPeer: kbgpv1.BGPPeer{Name: "b", PeerAddress: "10.0.0.2", PeerASN: 65002, PeerConfigRef: ref("tor")}},
			{BGPPeer: kbgpv1.BGPPeer{Name: "c", PeerAddress: "10.0.0.3", PeerASN: 65002, PeerConfigRef: ref("missing")}},
		},
	}}}}
	objs := []client.Object{nc,
		&kbgpv1.BGPPeerConfig{ObjectMeta: metav1.ObjectMeta{Name: "tor"}, Spec: kbgpv1.BGPPeerConfigSpec{AuthSecretRef: ptr.To("md5")}},
		&kbgpv1.BGPPeerConfig{ObjectMeta: metav1.ObjectMeta{Name: "unreferenced"}},
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}},
		&discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-1", Labels: map[string]string{discoveryv1.LabelServiceName: "web"}}},
	}
	r := fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).Build()
	var secretReads []string
	src := Sources{Reader: r, Secret: func(_ context.Context, name string) (*corev1.Secret, error) {
		secretReads = append(secretReads, name)
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name}}, nil
	}}
	ctx := context.Background()
	got, err := ReadNodeConfig(ctx, r, "worker-1")
	if err != nil || got == nil {
		t.Fatalf("ReadNodeConfig = %v, %v", got, err)
	}
	if none, err := ReadNodeConfig(ctx, r, "worker-2"); none != nil || err != nil {
		t.Errorf("a node without a config: %v, %v", none, err)
	}
	cluster, err := ReadCluster(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	in, err := ForNode(ctx, src, cluster, got)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := in.PeerConfigs["tor"]; !ok || len(in.PeerConfigs) != 1 {
		t.Errorf("peer configs %v, want tor only", slices.Collect(maps.Keys(in.PeerConfigs)))
	}
	if !slices.Equal(secretReads, []string{"md5"}) || in.Secrets["md5"] == nil {
		t.Errorf("Secret reads %v, secrets %v", secretReads, in.Secrets)
	}
	if n := len(in.EndpointSlices[types.NamespacedName{Namespace: "shop", Name: "web"}]); n != 1 || len(in.Services) != 1 {
		t.Errorf("%d slices of shop/web, %d Services", n, len(in.Services))
	}
}
