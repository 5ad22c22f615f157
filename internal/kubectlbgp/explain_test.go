package kubectlbgp

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kbgp.io/kbgp/internal/testing/golden"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

func clusterConfig(name string, age time.Duration, sel *kbgpv1.LabelSelector, instances ...kbgpv1.BGPInstance) kbgpv1.BGPClusterConfig {
	return kbgpv1.BGPClusterConfig{
		ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: *ago(age)},
		Spec:       kbgpv1.BGPClusterConfigSpec{NodeSelector: sel, BGPInstances: instances},
	}
}

func matchLabels(kv ...string) *kbgpv1.LabelSelector {
	m := map[string]kbgpv1.LabelValue{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kbgpv1.LabelValue(kv[i+1])
	}
	return &kbgpv1.LabelSelector{MatchLabels: m}
}

func clusterPeer(name, addr string, asn int64, vrf, ref string) kbgpv1.BGPPeer {
	p := kbgpv1.BGPPeer{Name: name, PeerAddress: addr, PeerASN: asn, VRF: vrf}
	if ref != "" {
		p.PeerConfigRef = &kbgpv1.PeerConfigReference{Name: ref}
	}
	return p
}

func advertisement(name string, lbls map[string]string, types ...kbgpv1.AdvertisementType) kbgpv1.BGPAdvertisement {
	ad := kbgpv1.BGPAdvertisement{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: lbls}}
	for _, typ := range types {
		ad.Spec.Advertisements = append(ad.Spec.Advertisements, kbgpv1.Advertisement{AdvertisementType: typ})
	}
	return ad
}

// twoConfigsWithOverride is worker-1 selected by two cluster configs (rack1 wins by
// age, all-nodes loses; rack1-copy ties on age and loses by name), not selected by
// two others, with an applied override that has entries matching nothing and a second
// override that is ignored.
func twoConfigsWithOverride() explainInput {
	rack1Sel := matchLabels("rack", "rack1")
	rack1Sel.MatchExpressions = []kbgpv1.LabelSelectorRequirement{
		{Key: "zone", Operator: "In", Values: []kbgpv1.LabelValue{"a", "b"}},
		{Key: "spot", Operator: "DoesNotExist"},
	}
	rack1 := clusterConfig("rack1", 48*time.Hour, rack1Sel,
		kbgpv1.BGPInstance{
			BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: 65001, RouterID: "${NODE_IP}", RouterIDPool: "10.255.0.0/16", LocalPort: ptr(int32(179))},
			Peers: []kbgpv1.BGPPeer{
				clusterPeer("tor-a", "10.1.1.1", 65002, "red", "rack1"),
				clusterPeer("tor-b", "10.1.1.2", 65002, "", "rack9"),
				clusterPeer("tor-c", "10.1.1.3", 65001, "", ""),
				clusterPeer("tor-d", "2001:db8::1", 65003, "", "plain"),
			},
		},
		kbgpv1.BGPInstance{BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: 65010}},
	)
	copySel := rack1Sel.DeepCopy()
	return explainInput{
		NodeName:   "worker-1",
		NodeLabels: map[string]string{"rack": "rack1", "zone": "a", "kubernetes.io/hostname": "worker-1"},
		ClusterConfigs: []kbgpv1.BGPClusterConfig{
			clusterConfig("all-nodes", time.Hour, nil, kbgpv1.BGPInstance{BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: 64512}}),
			clusterConfig("rack2", 72*time.Hour, matchLabels("rack", "rack2")),
			clusterConfig("rack1-copy", 48*time.Hour, copySel),
			rack1,
			clusterConfig("gpu", 72*time.Hour, &kbgpv1.LabelSelector{MatchExpressions: []kbgpv1.LabelSelectorRequirement{
				{Key: "gpu", Operator: "Exists"}, {Key: "zone", Operator: "NotIn", Values: []kbgpv1.LabelValue{"a"}},
			}}),
		},
		Overrides: []kbgpv1.BGPNodeConfigOverride{
			{ObjectMeta: metav1.ObjectMeta{Name: "worker-1-z"}, Spec: kbgpv1.BGPNodeConfigOverrideSpec{NodeRef: "worker-1"}},
			{ObjectMeta: metav1.ObjectMeta{Name: "worker-2"}, Spec: kbgpv1.BGPNodeConfigOverrideSpec{NodeRef: "worker-2",
				BGPInstances: []kbgpv1.BGPInstanceOverride{{LocalASN: 65001, RouterID: "10.9.9.9"}}}},
			{ObjectMeta: metav1.ObjectMeta{Name: "worker-1"}, Spec: kbgpv1.BGPNodeConfigOverrideSpec{NodeRef: "worker-1",
				BGPInstances: []kbgpv1.BGPInstanceOverride{
					{LocalASN: 65001, RouterID: "10.10.10.10", LocalPort: ptr(int32(1790)), Peers: []kbgpv1.BGPPeerOverride{
						{Name: "tor-a", PeerLocalEndpoint: kbgpv1.PeerLocalEndpoint{LocalAddress: "10.1.1.10", LocalPort: ptr(int32(40179))}},
						{Name: "ghost"},
					}},
					{LocalASN: 65099, RouterID: "10.10.10.11"},
					{LocalASN: 65010, NodeLocalASN: 4200000001},
				}}},
		},
		PeerConfigs: []kbgpv1.BGPPeerConfig{
			{ObjectMeta: metav1.ObjectMeta{Name: "rack1"}, Spec: kbgpv1.BGPPeerConfigSpec{
				AuthSecretRef: ptr("bgp-auth"),
				Families: []kbgpv1.BGPFamily{
					{AFI: kbgpv1.AFIIPv4, SAFI: kbgpv1.SAFIUnicast, Advertisements: matchLabels("advertise", "bgp")},
					{AFI: kbgpv1.AFIIPv6, SAFI: kbgpv1.SAFIUnicast},
				},
			}},
			{ObjectMeta: metav1.ObjectMeta{Name: "plain"}},
		},
		Advertisements: []kbgpv1.BGPAdvertisement{
			advertisement("services", map[string]string{"advertise": "bgp"}, kbgpv1.AdvertisementService, kbgpv1.AdvertisementPodCIDR, kbgpv1.AdvertisementService),
			advertisement("pods", map[string]string{"advertise": "bgp"}, kbgpv1.AdvertisementPodCIDR),
			advertisement("lab-only", map[string]string{"advertise": "lab"}, kbgpv1.AdvertisementPodCIDR),
		},
		NodeConfig: &kbgpv1.BGPNodeConfig{
			ObjectMeta: metav1.ObjectMeta{Name: "worker-1", Generation: 3, Labels: map[string]string{kbgpv1.ClusterConfigLabel: "rack1"}},
			Status: kbgpv1.BGPNodeConfigStatus{
				ObservedGeneration: 2,
				Conditions: []metav1.Condition{
					condition("RouterIDResolved", metav1.ConditionTrue, "RouterIDResolved", "instances resolved their router IDs from different sources"),
					condition("Degraded", metav1.ConditionTrue, "ConfigurationFailed", "some resources failed; the rest runs"),
					condition("Ready", metav1.ConditionFalse, "ConfigurationFailed", "1 resource(s) failed"),
				},
				FailedResources: []kbgpv1.FailedResource{
					{Kind: "BGPPeerConfig", Name: "rack9", Message: "not found"},
				},
				BGPInstances: []kbgpv1.BGPNodeInstanceStatus{
					{LocalASN: 65001, RouterID: "10.10.10.10", RouterIDSource: kbgpv1.RouterIDSourceExplicit, RouterIDNode: "worker-1", RouterIDResolutionTime: ago(time.Hour),
						Peers: []kbgpv1.BGPNodePeerStatus{
							sessionStatus("tor-a", "10.1.1.1", "red", kbgpv1.PeeringStateEstablished, time.Hour),
							sessionStatus("tor-c", "10.1.1.3", "", kbgpv1.PeeringStateEstablished, time.Hour),
							sessionStatus("tor-d", "2001:db8::1", "", kbgpv1.PeeringStateActive, 0),
						}},
					{LocalASN: 4200000001, RouterID: "10.255.166.39", RouterIDSource: kbgpv1.RouterIDSourceHash, RouterIDNode: "worker-1", RouterIDResolutionTime: ago(time.Hour)},
				},
			},
		},
	}
}

// goldenLines compares got, one line each, with testdata/name (rewritten with KBGP_UPDATE_GOLDEN=1).
func goldenLines(t *testing.T, name string, got []string) {
	t.Helper()
	golden.Compare(t, filepath.Join("testdata", name), []byte(strings.Join(got, "\n")+"\n"))
}

func TestExplainTwoConfigsWithOverride(t *testing.T) {
	goldenLines(t, "explain_two_configs_override.txt", explain(twoConfigsWithOverride()))
}

func TestExplainDoesNotDependOnListOrder(t *testing.T) {
	in := twoConfigsWithOverride()
	want := explain(in)
	reverse := func(n int, swap func(i, j int)) {
		for i, j := 0, n-1; i < j; i, j = i+1, j-1 {
			swap(i, j)
		}
	}
	reverse(len(in.ClusterConfigs), func(i, j int) {
		in.ClusterConfigs[i], in.ClusterConfigs[j] = in.ClusterConfigs[j], in.ClusterConfigs[i]
	})
	reverse(len(in.Overrides), func(i, j int) { in.Overrides[i], in.Overrides[j] = in.Overrides[j], in.Overrides[i] })
	reverse(len(in.Advertisements), func(i, j int) {
		in.Advertisements[i], in.Advertisements[j] = in.Advertisements[j], in.Advertisements[i]
	})
	if diff := cmp.Diff(want, explain(in)); diff != "" {
		t.Errorf("explain changed with list order (-before +after):\n%s", diff)
	}
}

func TestExplainNodeNotSelected(t *testing.T) {
	in := twoConfigsWithOverride()
	in.NodeLabels = map[string]string{"rack": "rack3", "spot": "true"}
	in.ClusterConfigs = slicesWithout(in.ClusterConfigs, "all-nodes")
	goldenLines(t, "explain_not_selected.txt", explain(in))
}

func slicesWithout(ccs []kbgpv1.BGPClusterConfig, name string) []kbgpv1.BGPClusterConfig {
	var out []kbgpv1.BGPClusterConfig
	for _, cc := range ccs {
		if cc.Name != name {
			out = append(out, cc)
		}
	}
	return out
}

// TestExplainSanitised: every value taken from an object goes through the sanitiser,
// so a newline anywhere cannot add a line to the explanation.
func TestExplainSanitised(t *testing.T) {
	in := twoConfigsWithOverride()
	base := len(explain(in))
	in.NodeLabels["note"] = "a\nb"
	in.PeerConfigs[0].Spec.AuthSecretRef = ptr("evil\nsecret")
	in.NodeConfig.Status.FailedResources[0].Message = "not\r\nfound\x00"
	in.NodeConfig.Status.Conditions[0].Message = "x\ny"
	got := explain(in)
	if len(got) != base {
		t.Errorf("explain has %d lines, want %d:\n%s", len(got), base, strings.Join(got, "\n"))
	}
	all := strings.Join(got, "")
	for _, s := range []string{"note=a_b", "evil_secret", "not__found_", "x_y"} {
		if !strings.Contains(all, s) {
			t.Errorf("output lacks sanitised %q", s)
		}
	}
}

func TestExplainMesh(t *testing.T) {
	in := twoConfigsWithOverride()
	for i := range in.ClusterConfigs {
		for j := range in.ClusterConfigs[i].Spec.BGPInstances {
			in.ClusterConfigs[i].Spec.BGPInstances[j].Mesh = &kbgpv1.BGPMesh{Enabled: true, PeerConfigRef: &kbgpv1.PeerConfigReference{Name: "mesh"},
				RouteReflectors: &kbgpv1.BGPRouteReflectors{ClusterID: "10.0.0.1", NodeSelector: kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"rr": "yes"}}}}
		}
	}
	out := strings.Join(explain(in), "\n")
	for _, want := range []string{`mesh: route reflectors {"matchLabels":{"rr":"yes"}}, cluster ID 10.0.0.1`, "peerConfigRef: mesh NOT FOUND"} {
		if !strings.Contains(out, want) {
			t.Errorf("explain does not say %q:\n%s", want, out)
		}
	}
	in.NodeConfig.Spec.BGPInstances = []kbgpv1.BGPNodeInstance{{BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: 65001},
		Mesh: &kbgpv1.BGPNodeMesh{ClusterID: "10.0.0.1", Peers: []kbgpv1.BGPMeshPeer{{Name: "mesh-a-v4"}, {Name: "mesh-b-v4"}}}}}
	if out := strings.Join(explain(in), "\n"); !strings.Contains(out, "this node is a reflector, 2 mesh peers rendered") {
		t.Errorf("explain does not count the rendered mesh peers:\n%s", out)
	}
}
