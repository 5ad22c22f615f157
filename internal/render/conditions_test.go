package render

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

func conditionStatuses(conds []metav1.Condition) map[string]string {
	out := map[string]string{}
	for _, c := range conds {
		out[c.Type] = string(c.Status) + "/" + c.Reason
	}
	return out
}

func TestClusterConfigConditions(t *testing.T) {
	now := metav1.NewTime(t0)
	tests := []struct {
		name  string
		facts ClusterConfigFacts
		want  map[string]string
	}{
		{"ready", ClusterConfigFacts{SelectedNodes: 3}, map[string]string{
			"Ready": "True/Rendered", "NoMatchingNodes": "False/NodesSelected",
			"MissingPeerConfigs": "False/PeerConfigsFound", "ConflictingClusterConfigs": "False/NoConflict", "RouterIDConflict": "False/RouterIDsUnique",
			"RouterIDPoolUsageHigh": "False/PoolUsageNormal",
		}},
		{"no nodes", ClusterConfigFacts{}, map[string]string{
			"Ready": "False/NoMatchingNodes", "NoMatchingNodes": "True/NoMatchingNodes",
			"MissingPeerConfigs": "False/PeerConfigsFound", "ConflictingClusterConfigs": "False/NoConflict", "RouterIDConflict": "False/RouterIDsUnique",
			"RouterIDPoolUsageHigh": "False/PoolUsageNormal",
		}},
		{"missing peer config", ClusterConfigFacts{SelectedNodes: 1, MissingPeerConfigs: []string{"rack9"}}, map[string]string{
			"Ready": "False/MissingPeerConfigs", "NoMatchingNodes": "False/NodesSelected",
			"MissingPeerConfigs": "True/MissingPeerConfigs", "ConflictingClusterConfigs": "False/NoConflict", "RouterIDConflict": "False/RouterIDsUnique",
			"RouterIDPoolUsageHigh": "False/PoolUsageNormal",
		}},
		{"conflict", ClusterConfigFacts{SelectedNodes: 2, ConflictNodes: map[string]string{"n1": "old"}}, map[string]string{
			"Ready": "False/ConflictingClusterConfigs", "NoMatchingNodes": "False/NodesSelected",
			"MissingPeerConfigs": "False/PeerConfigsFound", "ConflictingClusterConfigs": "True/ConflictingClusterConfigs", "RouterIDConflict": "False/RouterIDsUnique",
			"RouterIDPoolUsageHigh": "False/PoolUsageNormal",
		}},
		{"router ID conflict", ClusterConfigFacts{SelectedNodes: 2, RouterIDConflicts: []RouterIDConflict{{LocalASN: 65001, RouterID: "10.255.1.1", Nodes: []string{"a", "b"}}}}, map[string]string{
			"Ready": "False/RouterIDConflict", "NoMatchingNodes": "False/NodesSelected",
			"MissingPeerConfigs": "False/PeerConfigsFound", "ConflictingClusterConfigs": "False/NoConflict", "RouterIDConflict": "True/RouterIDConflict",
			"RouterIDPoolUsageHigh": "False/PoolUsageNormal",
		}},
		{"router-ID pool more than half used: a warning, still Ready", ClusterConfigFacts{SelectedNodes: 200, HighPoolUsage: []PoolUsage{{LocalASN: 65001, Pool: "172.16.0.0/24"}}}, map[string]string{
			"Ready": "True/Rendered", "NoMatchingNodes": "False/NodesSelected",
			"MissingPeerConfigs": "False/PeerConfigsFound", "ConflictingClusterConfigs": "False/NoConflict", "RouterIDConflict": "False/RouterIDsUnique",
			"RouterIDPoolUsageHigh": "True/RouterIDPoolUsageHigh",
		}},
		{"overrides a peering policy: said while it holds, still Ready", ClusterConfigFacts{SelectedNodes: 2, OverriddenPolicies: map[string]string{"n1": "p"}}, map[string]string{
			"Ready": "True/Rendered", "NoMatchingNodes": "False/NodesSelected",
			"MissingPeerConfigs": "False/PeerConfigsFound", "ConflictingClusterConfigs": "False/NoConflict", "RouterIDConflict": "False/RouterIDsUnique",
			"RouterIDPoolUsageHigh": "False/PoolUsageNormal", "OverridesPeeringPolicy": "True/OverridesPeeringPolicy",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ClusterConfigConditions(nil, 4, tc.facts, now)
			if diff := cmp.Diff(tc.want, conditionStatuses(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			for _, c := range got {
				if c.ObservedGeneration != 4 {
					t.Errorf("%s observedGeneration %d, want 4", c.Type, c.ObservedGeneration)
				}
			}
		})
	}
}

// The condition about peering policies leaves when it stops holding.
func TestOverridesPeeringPolicyLeaves(t *testing.T) {
	held := ClusterConfigConditions(nil, 1, ClusterConfigFacts{SelectedNodes: 1, OverriddenPolicies: map[string]string{"n1": "p"}}, metav1.NewTime(t0))
	if msg := conditionStatuses(held)[kbgpv1.ConditionOverridesPeeringPolicy]; msg == "" {
		t.Fatal("no OverridesPeeringPolicy condition while it holds")
	}
	gone := ClusterConfigConditions(held, 2, ClusterConfigFacts{SelectedNodes: 1}, metav1.NewTime(t0))
	if st, ok := conditionStatuses(gone)[kbgpv1.ConditionOverridesPeeringPolicy]; ok {
		t.Errorf("OverridesPeeringPolicy still present (%s) once no policy is overridden", st)
	}
}

// The same observation later must produce an identical list: no status write.
func TestClusterConfigConditionsStable(t *testing.T) {
	facts := ClusterConfigFacts{SelectedNodes: 2, ConflictNodes: map[string]string{"n1": "old"}}
	first := ClusterConfigConditions(nil, 1, facts, metav1.NewTime(t0))
	second := ClusterConfigConditions(first, 1, facts, metav1.NewTime(t0.Add(time.Hour)))
	if diff := cmp.Diff(first, second); diff != "" {
		t.Errorf("unchanged facts changed the conditions (-first +second):\n%s", diff)
	}
}

func TestConflictMessageIsBounded(t *testing.T) {
	conflicts := map[string]string{}
	for i := range 500 {
		conflicts[fmt.Sprintf("node-%03d", i)] = "old"
	}
	msg := conflictMessage(conflicts)
	want := "500 selected node(s) run another BGPClusterConfig that takes precedence: node-000 (runs old)"
	if len(msg) > 400 || msg[:len(want)] != want {
		t.Fatalf("message %d bytes: %s", len(msg), msg)
	}
}

func TestMissingPeerConfigs(t *testing.T) {
	cc := clusterConfig("c", time.Hour, nil,
		instance(65001, peer("a", "10.1.1.1", 65002, "tor"), peer("b", "10.1.1.2", 65002, "rack9"), peer("c", "10.1.1.3", 65002, "")),
		instance(65002, peer("d", "10.1.1.4", 65002, "rack9"), peer("e", "10.1.1.5", 65002, "abc")))
	got := MissingPeerConfigs(&cc, map[string]bool{"tor": true})
	if diff := cmp.Diff([]string{"abc", "rack9"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestRouterIDConflicts(t *testing.T) {
	nc := func(name string, ids map[int64]string) kbgpv1.BGPNodeConfig {
		out := kbgpv1.BGPNodeConfig{ObjectMeta: metav1.ObjectMeta{Name: name}}
		for asn, id := range ids {
			out.Status.BGPInstances = append(out.Status.BGPInstances, kbgpv1.BGPNodeInstanceStatus{LocalASN: asn, RouterID: id})
		}
		return out
	}
	got := RouterIDConflicts([]kbgpv1.BGPNodeConfig{
		nc("c", map[int64]string{65001: "10.255.166.39"}),
		nc("a", map[int64]string{65001: "10.255.166.39", 65002: "10.0.0.1"}),
		nc("b", map[int64]string{65001: "10.0.0.2", 65002: "10.0.0.1"}),
		nc("d", map[int64]string{65001: "10.0.0.1"}),  // same ID, other instance: fine
		nc("unresolved", map[int64]string{65001: ""}), // not resolved yet
	})
	want := []RouterIDConflict{
		{LocalASN: 65001, RouterID: "10.255.166.39", Nodes: []string{"a", "c"}},
		{LocalASN: 65002, RouterID: "10.0.0.1", Nodes: []string{"a", "b"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
