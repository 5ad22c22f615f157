package render

import (
	"path/filepath"
	"testing"
	"time"

	"kbgp.io/kbgp/internal/testing/golden"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

var t0 = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

func clusterConfig(name string, age time.Duration, selector *kbgpv1.LabelSelector, instances ...kbgpv1.BGPInstance) kbgpv1.BGPClusterConfig {
	return kbgpv1.BGPClusterConfig{
		ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(t0.Add(-age))},
		Spec:       kbgpv1.BGPClusterConfigSpec{NodeSelector: selector, BGPInstances: instances},
	}
}

func instance(asn int64, peers ...kbgpv1.BGPPeer) kbgpv1.BGPInstance {
	return kbgpv1.BGPInstance{
		BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: asn, RouterIDPool: "10.255.0.0/16"},
		Peers:               peers,
	}
}

func peer(name, addr string, asn int64, ref string) kbgpv1.BGPPeer {
	p := kbgpv1.BGPPeer{Name: name, PeerAddress: addr, PeerASN: asn}
	if ref != "" {
		p.PeerConfigRef = &kbgpv1.PeerConfigReference{Name: ref}
	}
	return p
}

func matchLabels(kv ...string) *kbgpv1.LabelSelector {
	m := map[string]kbgpv1.LabelValue{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kbgpv1.LabelValue(kv[i+1])
	}
	return &kbgpv1.LabelSelector{MatchLabels: m}
}

func overrideFor(name, node string, instances ...kbgpv1.BGPInstanceOverride) kbgpv1.BGPNodeConfigOverride {
	return kbgpv1.BGPNodeConfigOverride{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       kbgpv1.BGPNodeConfigOverrideSpec{NodeRef: node, BGPInstances: instances},
	}
}

var rack1 = clusterConfig("rack1", time.Hour, matchLabels("rack", "rack1"),
	instance(65001,
		peer("tor-a", "10.1.1.1", 65002, "tor"),
		peer("tor-b", "2001:db8:1::1", 65002, "tor"),
		kbgpv1.BGPPeer{Name: "red", PeerAddress: "10.1.1.1", PeerASN: 65010, VRF: "red"}),
	instance(65100, peer("rr", "10.9.9.9", 65100, "")),
)

// TestNodeConfigGolden renders whole objects and compares them with YAML files, so a
// reviewer sees exactly what the operator writes. Regenerate with KBGP_UPDATE_GOLDEN=1.
func TestNodeConfigGolden(t *testing.T) {
	node := Node{Name: "worker-1", UID: "6f1c1d2e-0000-4000-8000-000000000001"}
	tests := []struct {
		golden  string
		ov      *kbgpv1.BGPNodeConfigOverride
		problem []kbgpv1.FailedResource
	}{
		{golden: "no-override.yaml"},
		{
			golden: "override.yaml",
			ov: ptrTo(overrideFor("worker-1", "worker-1", kbgpv1.BGPInstanceOverride{
				LocalASN: 65001, RouterID: "10.10.10.10", LocalPort: ptrTo(int32(1790)),
				Peers: []kbgpv1.BGPPeerOverride{{Name: "tor-a", PeerLocalEndpoint: kbgpv1.PeerLocalEndpoint{LocalAddress: "10.1.1.10", LocalPort: ptrTo(int32(40179))}}},
			})),
		},
		{
			// A per-node ASN, and a second instance whose per-node ASN would collide with
			// the first instance's cluster ASN... had that one not moved too: applied.
			golden: "override-asn.yaml",
			ov: ptrTo(overrideFor("worker-1", "worker-1",
				kbgpv1.BGPInstanceOverride{LocalASN: 65100, NodeLocalASN: 65001},
				kbgpv1.BGPInstanceOverride{LocalASN: 65001, NodeLocalASN: 4200000101, RouterID: "10.10.10.10"},
			)),
		},
		{
			golden: "override-asn-collision.yaml",
			ov: ptrTo(overrideFor("collide", "worker-1",
				kbgpv1.BGPInstanceOverride{LocalASN: 65100, NodeLocalASN: 65001, RouterID: "10.10.10.10"},
			)),
			problem: []kbgpv1.FailedResource{
				{Kind: "BGPNodeConfigOverride", Name: "collide", Message: "nodeLocalASN 65001 of instance 65100 is the ASN of another instance of the node: not applied"},
			},
		},
		{
			golden: "override-unmatched.yaml",
			ov: ptrTo(overrideFor("stale", "worker-1",
				kbgpv1.BGPInstanceOverride{LocalASN: 65009, RouterID: "10.10.10.10"},
				kbgpv1.BGPInstanceOverride{LocalASN: 65100, Peers: []kbgpv1.BGPPeerOverride{{Name: "gone", PeerLocalEndpoint: kbgpv1.PeerLocalEndpoint{LocalPort: ptrTo(int32(1))}}}},
			)),
			problem: []kbgpv1.FailedResource{
				{Kind: "BGPNodeConfigOverride", Name: "stale", Message: "instance with localASN 65009 is not in the node's cluster config"},
				{Kind: "BGPNodeConfigOverride", Name: "stale", Message: "peer gone of instance 65100 is not in the node's cluster config"},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.golden, func(t *testing.T) {
			in := rack1.DeepCopy()
			got, problems := NodeConfig(in, node, tc.ov)
			if diff := cmp.Diff(tc.problem, problems); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(&rack1, in); diff != "" {
				t.Errorf("rendering mutated its input (-before +after):\n%s", diff)
			}
			compareGolden(t, filepath.Join("testdata", tc.golden), got)
		})
	}
}

func compareGolden(t *testing.T, path string, obj any) {
	t.Helper()
	got, err := yaml.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	golden.Compare(t, path, got)
}

// The override must not leak into the cluster config's data shared with other nodes.
func TestNodeConfigDoesNotAlias(t *testing.T) {
	in := rack1.DeepCopy()
	a, _ := NodeConfig(in, Node{Name: "a"}, ptrTo(overrideFor("a", "a", kbgpv1.BGPInstanceOverride{
		LocalASN: 65001, LocalPort: ptrTo(int32(1790)), ListenAddresses: []kbgpv1.IPAddress{"10.1.1.10"},
		Peers: []kbgpv1.BGPPeerOverride{{Name: "tor-a", PeerLocalEndpoint: kbgpv1.PeerLocalEndpoint{LocalAddress: "10.1.1.10"}}},
	})))
	b, _ := NodeConfig(in, Node{Name: "b"}, nil)
	if b.Spec.BGPInstances[0].LocalPort != nil || b.Spec.BGPInstances[0].Peers[0].LocalAddress != "" || len(b.Spec.BGPInstances[0].ListenAddresses) != 0 {
		t.Fatalf("node b got node a's override: %+v", b.Spec.BGPInstances[0])
	}
	if a.Spec.BGPInstances[0].LocalPort == nil || *a.Spec.BGPInstances[0].LocalPort != 1790 || len(a.Spec.BGPInstances[0].ListenAddresses) != 1 {
		t.Fatal("override lost")
	}
}

func TestAssignNode(t *testing.T) {
	old := clusterConfig("zeta", 2*time.Hour, matchLabels("rack", "rack1"), instance(65001))
	young := clusterConfig("alpha", time.Hour, nil, instance(65001))
	sameAgeB := clusterConfig("b", time.Hour, matchLabels("zone", "z1"), instance(65001))
	sameAgeA := clusterConfig("a", time.Hour, matchLabels("zone", "z1"), instance(65001))
	empty := clusterConfig("empty", 3*time.Hour, &kbgpv1.LabelSelector{}, instance(65001))
	expr := clusterConfig("expr", time.Hour, &kbgpv1.LabelSelector{MatchExpressions: []kbgpv1.LabelSelectorRequirement{
		{Key: "rack", Operator: "NotIn", Values: []kbgpv1.LabelValue{"rack1"}},
	}}, instance(65001))
	// Generated from a BGPPeeringPolicy, and older than every user-written config.
	policy := clusterConfig("bgpp-p", 5*time.Hour, nil, instance(65001))
	policy.Labels = map[string]string{kbgpv1.PeeringPolicyLabel: "p"}

	tests := []struct {
		name       string
		configs    []kbgpv1.BGPClusterConfig
		labels     map[string]string
		wantWinner string
		wantLosers []string
	}{
		{"nothing selects", []kbgpv1.BGPClusterConfig{old}, map[string]string{"rack": "rack2"}, "", nil},
		{"nil selector selects every node", []kbgpv1.BGPClusterConfig{young}, nil, "alpha", nil},
		{"empty selector selects every node", []kbgpv1.BGPClusterConfig{empty}, map[string]string{"x": "y"}, "empty", nil},
		{"oldest wins over name order", []kbgpv1.BGPClusterConfig{young, old}, map[string]string{"rack": "rack1"}, "zeta", []string{"alpha"}},
		{"same age: alphabetical", []kbgpv1.BGPClusterConfig{sameAgeB, sameAgeA}, map[string]string{"zone": "z1"}, "a", []string{"b"}},
		{"match expressions", []kbgpv1.BGPClusterConfig{expr}, map[string]string{"rack": "rack2"}, "expr", nil},
		{"match expressions exclude", []kbgpv1.BGPClusterConfig{expr}, map[string]string{"rack": "rack1"}, "", nil},
		{"a user's config wins over a policy's, whatever their ages", []kbgpv1.BGPClusterConfig{policy, young}, nil, "alpha", []string{"bgpp-p"}},
		{"a policy's config runs where no user's selects the node", []kbgpv1.BGPClusterConfig{policy, old}, map[string]string{"rack": "rack2"}, "bgpp-p", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sels, errs := ParseSelectors(tc.configs)
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			a := AssignNode(sels, tc.labels)
			var winner string
			if a.Winner != nil {
				winner = a.Winner.Name
			}
			var losers []string
			for _, l := range a.Losers {
				losers = append(losers, l.Name)
			}
			if winner != tc.wantWinner || !cmp.Equal(losers, tc.wantLosers) {
				t.Fatalf("winner %q losers %v, want %q %v", winner, losers, tc.wantWinner, tc.wantLosers)
			}
		})
	}
}

func TestParseSelectorsRefusesBadSelector(t *testing.T) {
	bad := clusterConfig("bad", time.Hour, &kbgpv1.LabelSelector{MatchExpressions: []kbgpv1.LabelSelectorRequirement{
		{Key: "rack", Operator: "In"},
	}}, instance(65001))
	sels, errs := ParseSelectors([]kbgpv1.BGPClusterConfig{bad})
	if len(errs) != 1 {
		t.Fatalf("want one error, got %v", errs)
	}
	if sels[0].Selects(map[string]string{"rack": "x"}) || sels[0].Selects(nil) {
		t.Fatal("a config with a broken selector must select no node")
	}
}

func TestPickOverride(t *testing.T) {
	b := overrideFor("b", "n")
	a := overrideFor("a", "n")
	c := overrideFor("c", "n")
	applied, ignored := PickOverride([]kbgpv1.BGPNodeConfigOverride{b, c, a})
	if applied.Name != "a" {
		t.Fatalf("applied %s, want a", applied.Name)
	}
	want := []kbgpv1.FailedResource{
		{Kind: "BGPNodeConfigOverride", Name: "b", Message: "ignored: override a also targets this node and applies (the alphabetically first wins)"},
		{Kind: "BGPNodeConfigOverride", Name: "c", Message: "ignored: override a also targets this node and applies (the alphabetically first wins)"},
	}
	if diff := cmp.Diff(want, ignored); diff != "" {
		t.Errorf("ignored (-want +got):\n%s", diff)
	}
	if applied, ignored := PickOverride(nil); applied != nil || ignored != nil {
		t.Fatal("no overrides must apply nothing")
	}
}
