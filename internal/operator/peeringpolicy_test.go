package operator_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/operator"
)

// documentPolicy is the example policy of docs/migration.md ("Backward
// Compatibility"), in kbgp's group, as a user would apply it.
const documentPolicy = `
apiVersion: kbgp.io/v1alpha1
kind: BGPPeeringPolicy
metadata:
  name: 01-bgp-peering-policy
spec:
  nodeSelector:
    matchLabels:
      bgp-policy: a
  virtualRouters:
    - localASN: 64512
      exportPodCIDR: true
      neighbors:
        - peerAddress: "fc00:f853:ccd:e793::50/128"
          peerASN: 64512
          eBGPMultihopTTL: 10
          connectRetryTimeSeconds: 120
          holdTimeSeconds: 90
          keepAliveTimeSeconds: 30
          gracefulRestart:
            enabled: true
            restartTimeSeconds: 120
`

// The objects the document says the policy becomes, in kbgp's kinds: its
// CiliumBGPAdvertisement, CiliumBGPPeerConfig and CiliumBGPNodeConfig, with the
// names the API fixes (":" written "-") and both families by default.
const (
	documentAdvertisement = `
advertisements:
- advertisementType: PodCIDR
`
	documentPeerConfig = `
timers:
  connectRetryTimeSeconds: 120
  holdTimeSeconds: 90
  keepAliveTimeSeconds: 30
gracefulRestart:
  enabled: true
  restartTimeSeconds: 120
ebgpMultihop: 10
transport:
  peerPort: 179
families:
- afi: ipv4
  safi: unicast
  advertisements:
    matchLabels:
      kbgp.io/advert: bgpp-01-bgp-peering-policy-64512
- afi: ipv6
  safi: unicast
  advertisements:
    matchLabels:
      kbgp.io/advert: bgpp-01-bgp-peering-policy-64512
`
	documentNodeConfig = `
bgpInstances:
- localASN: 64512
  routerIDPool: 10.255.0.0/16
  peers:
  - name: fc00-f853-ccd-e793--50
    peerAddress: "fc00:f853:ccd:e793::50"
    peerASN: 64512
    peerConfigRef:
      name: "bgpp-01-bgp-peering-policy-64512-fc00-f853-ccd-e793--50"
`
)

// TestPeeringPolicyOfTheDocument applies the document's example policy to the real
// API server with the operator running, and compares what it yields with what the
// document says, field by field: the advertisement, the peer config and the node
// config of a node the policy selects (the /128 stripped).
func TestPeeringPolicyOfTheDocument(t *testing.T) {
	startOperator(t, operator.Options{})
	createNode(t, "bgpp-doc-1", map[string]string{"bgp-policy": "a"})
	p := &kbgpv1.BGPPeeringPolicy{}
	if err := yaml.UnmarshalStrict([]byte(documentPolicy), p); err != nil {
		t.Fatal(err)
	}
	createObject(t, p)

	ad := &kbgpv1.BGPAdvertisement{}
	waitFor(t, "bgpp-01-bgp-peering-policy-64512", ad)
	compareSpec(t, "advertisement", documentAdvertisement, ad.Spec)
	if got := ad.Labels[kbgpv1.AdvertLabel]; got != "bgpp-01-bgp-peering-policy-64512" {
		t.Errorf("advertisement label kbgp.io/advert=%q", got)
	}
	pc := &kbgpv1.BGPPeerConfig{}
	waitFor(t, "bgpp-01-bgp-peering-policy-64512-fc00-f853-ccd-e793--50", pc)
	compareSpec(t, "peer config", documentPeerConfig, pc.Spec)
	nc := nodeConfigFrom(t, "bgpp-doc-1", "bgpp-01-bgp-peering-policy")
	compareSpec(t, "node config", documentNodeConfig, nc.Spec)

	for _, o := range []client.Object{ad, pc} {
		if o.GetLabels()[kbgpv1.PeeringPolicyLabel] != p.Name || !metav1.IsControlledBy(o, p) {
			t.Errorf("%s: label %v, owners %v: not marked as the policy's", o.GetName(), o.GetLabels(), o.GetOwnerReferences())
		}
	}
	st := policyCondition(t, p.Name, "Ready", metav1.ConditionTrue)
	want := []kbgpv1.GeneratedObject{
		{Kind: "BGPAdvertisement", Name: "bgpp-01-bgp-peering-policy-64512"},
		{Kind: "BGPPeerConfig", Name: "bgpp-01-bgp-peering-policy-64512-fc00-f853-ccd-e793--50"},
		{Kind: "BGPClusterConfig", Name: "bgpp-01-bgp-peering-policy"},
	}
	if diff := cmp.Diff(want, st.Generated); diff != "" {
		t.Errorf("status.generated (-want +got):\n%s", diff)
	}
}

// TestPeeringPolicyKeepsItsObjects: an edit to a generated object is put back; a
// neighbour removed from the policy takes its peer config with it; a user-written
// cluster config selecting the same node wins, whatever the ages, and both statuses say
// so; with the garbage collector running, deleting the policy removes every generated
// object and the node's config.
func TestPeeringPolicyKeepsItsObjects(t *testing.T) {
	stopGC, err := server.StartGarbageCollector(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stopGC)
	startOperator(t, operator.Options{})
	createNode(t, "bgpp-keep-1", map[string]string{"bgpp-keep": "yes"})
	p := &kbgpv1.BGPPeeringPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "keep"},
		Spec: kbgpv1.BGPPeeringPolicySpec{
			NodeSelector: &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"bgpp-keep": "yes"}},
			VirtualRouters: []kbgpv1.BGPVirtualRouter{{LocalASN: 65001, ExportPodCIDR: true, Neighbors: []kbgpv1.BGPNeighbor{
				{PeerAddress: "10.1.1.1", PeerASN: 65010, HoldTimeSeconds: ptr.To[int32](9)},
				{PeerAddress: "10.1.1.2/32", PeerASN: 65010},
			}}},
		},
	}
	createObject(t, p)
	nodeConfigFrom(t, "bgpp-keep-1", "bgpp-keep")
	policyCondition(t, p.Name, "Ready", metav1.ConditionTrue)

	// An edit is put back.
	pc := &kbgpv1.BGPPeerConfig{}
	waitFor(t, "bgpp-keep-65001-10.1.1.1", pc)
	pc.Spec.Timers.HoldTimeSeconds = ptr.To[int32](30)
	if err := server.Client.Update(context.Background(), pc); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "the edit put back", func() error {
		if err := server.Client.Get(context.Background(), client.ObjectKeyFromObject(pc), pc); err != nil {
			return err
		}
		if got := *pc.Spec.Timers.HoldTimeSeconds; got != 9 {
			return fmt.Errorf("hold time %d", got)
		}
		return nil
	})

	// A neighbour removed: its peer config goes.
	updatePolicy(t, p.Name, func(p *kbgpv1.BGPPeeringPolicy) {
		p.Spec.VirtualRouters[0].Neighbors = p.Spec.VirtualRouters[0].Neighbors[:1]
	})
	gone(t, &kbgpv1.BGPPeerConfig{ObjectMeta: metav1.ObjectMeta{Name: "bgpp-keep-65001-10.1.1.2"}})

	// A user's cluster config, younger than the policy's, selects the node: it wins.
	user := clusterConfig("bgpp-keep-user", "keep", "")
	user.Spec.NodeSelector = &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"bgpp-keep": "yes"}}
	createObject(t, user)
	nodeConfigFrom(t, "bgpp-keep-1", "bgpp-keep-user")
	c := policyCondition(t, p.Name, "Ready", metav1.ConditionFalse)
	if r := meta.FindStatusCondition(c.Conditions, "Ready"); r.Reason != kbgpv1.ReasonOverriddenByClusterConfig {
		t.Errorf("policy Ready reason %q (%s), want %s", r.Reason, r.Message, kbgpv1.ReasonOverriddenByClusterConfig)
	}
	conditionOf(t, "bgpp-keep-user", "OverridesPeeringPolicy", metav1.ConditionTrue)
	deleteObject(t, user)
	nodeConfigFrom(t, "bgpp-keep-1", "bgpp-keep")
	policyCondition(t, p.Name, "Ready", metav1.ConditionTrue)

	// The policy deleted: everything it generated goes, and with it the node's config.
	deleteObject(t, p)
	gone(t, &kbgpv1.BGPPeerConfig{ObjectMeta: metav1.ObjectMeta{Name: "bgpp-keep-65001-10.1.1.1"}})
	gone(t, &kbgpv1.BGPAdvertisement{ObjectMeta: metav1.ObjectMeta{Name: "bgpp-keep-65001"}})
	gone(t, &kbgpv1.BGPClusterConfig{ObjectMeta: metav1.ObjectMeta{Name: "bgpp-keep"}})
	noNodeConfig(t, "bgpp-keep-1")
}

// TestPeeringPolicyLeavesOthersObjectsAlone: a generated name already held by an
// object the policy does not own is reported, not taken over.
func TestPeeringPolicyLeavesOthersObjectsAlone(t *testing.T) {
	startOperator(t, operator.Options{})
	mine := &kbgpv1.BGPAdvertisement{ObjectMeta: metav1.ObjectMeta{Name: "bgpp-taken-65001"},
		Spec: kbgpv1.BGPAdvertisementSpec{Advertisements: []kbgpv1.Advertisement{{AdvertisementType: kbgpv1.AdvertisementPodCIDR}}}}
	createObject(t, mine)
	p := &kbgpv1.BGPPeeringPolicy{ObjectMeta: metav1.ObjectMeta{Name: "taken"}, Spec: kbgpv1.BGPPeeringPolicySpec{
		VirtualRouters: []kbgpv1.BGPVirtualRouter{{LocalASN: 65001, ExportPodCIDR: true, Neighbors: []kbgpv1.BGPNeighbor{{PeerAddress: "10.1.1.1", PeerASN: 65010}}}},
	}}
	createObject(t, p)
	st := policyCondition(t, p.Name, "Translated", metav1.ConditionFalse)
	if c := meta.FindStatusCondition(st.Conditions, "Translated"); c.Reason != kbgpv1.ReasonNameTaken {
		t.Errorf("Translated reason %q (%s), want %s", c.Reason, c.Message, kbgpv1.ReasonNameTaken)
	}
	got := &kbgpv1.BGPAdvertisement{}
	waitFor(t, mine.Name, got)
	if len(got.OwnerReferences) != 0 || got.Labels[kbgpv1.PeeringPolicyLabel] != "" {
		t.Errorf("the user's advertisement was taken over: %v %v", got.OwnerReferences, got.Labels)
	}
	waitFor(t, "bgpp-taken-65001-10.1.1.1", &kbgpv1.BGPPeerConfig{})
}

// waitFor waits until the named cluster-scoped object exists and reads it into obj.
func waitFor(t *testing.T, name string, obj client.Object) {
	t.Helper()
	eventually(t, 20*time.Second, fmt.Sprintf("%T %s", obj, name), func() error {
		return server.Client.Get(context.Background(), client.ObjectKey{Name: name}, obj)
	})
}

// gone waits until obj no longer exists.
func gone(t *testing.T, obj client.Object) {
	t.Helper()
	eventually(t, 30*time.Second, fmt.Sprintf("%T %s deleted", obj, obj.GetName()), func() error {
		err := server.Client.Get(context.Background(), client.ObjectKeyFromObject(obj), obj)
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("still there (%v)", err)
	})
}

// compareSpec compares a spec with the YAML the document gives for it.
func compareSpec[T any](t *testing.T, what, wantYAML string, got T) {
	t.Helper()
	var want T
	if err := yaml.UnmarshalStrict([]byte(wantYAML), &want); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s differs from the document (-document +got):\n%s", what, diff)
	}
}

// policyCondition waits until the policy's status, for its current generation, has
// the condition with status, and returns the status.
func policyCondition(t *testing.T, name, typ string, status metav1.ConditionStatus) kbgpv1.BGPPeeringPolicyStatus {
	t.Helper()
	var st kbgpv1.BGPPeeringPolicyStatus
	eventually(t, 20*time.Second, fmt.Sprintf("policy %s %s=%s", name, typ, status), func() error {
		var p kbgpv1.BGPPeeringPolicy
		if err := server.Client.Get(context.Background(), client.ObjectKey{Name: name}, &p); err != nil {
			return err
		}
		c := meta.FindStatusCondition(p.Status.Conditions, typ)
		switch {
		case c == nil:
			return fmt.Errorf("no %s condition: %v", typ, p.Status.Conditions)
		case c.Status != status || c.ObservedGeneration != p.Generation:
			return fmt.Errorf("%s=%s (%s: %s) at generation %d of %d", typ, c.Status, c.Reason, c.Message, c.ObservedGeneration, p.Generation)
		}
		st = p.Status
		return nil
	})
	return st
}

// updatePolicy applies change to the latest version of a policy, retrying on
// conflicts with the operator's status writes.
func updatePolicy(t *testing.T, name string, change func(*kbgpv1.BGPPeeringPolicy)) {
	t.Helper()
	eventually(t, 10*time.Second, "update of "+name, func() error {
		var p kbgpv1.BGPPeeringPolicy
		if err := server.Client.Get(context.Background(), client.ObjectKey{Name: name}, &p); err != nil {
			return err
		}
		change(&p)
		return server.Client.Update(context.Background(), &p)
	})
}
