package operator_test

import (
	"context"
	"path/filepath"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kbgp.io/kbgp/internal/operator"
)

// TestGeneratedRBACSuffices runs the operator as a user that holds nothing but the
// generated ClusterRole, so a missing marker fails here instead of in a cluster.
func TestGeneratedRBACSuffices(t *testing.T) {
	role := filepath.Join(server.RepoRoot, "config", "rbac", "operator", "role.yaml")
	if err := server.GrantGeneratedRoles(context.Background(), "rbac-test-operator", role); err != nil {
		t.Fatal(err)
	}
	cfg, err := server.UserConfig("rbac-test-operator")
	if err != nil {
		t.Fatal(err)
	}
	startOperatorWithConfig(t, cfg, operator.Options{LeaderElect: true, LeaderElectionNamespace: "kbgp-system"})

	createNode(t, "rbac-1", map[string]string{"rack": "rbac"})
	createObject(t, clusterConfig("rbac", "rbac", "rbac-missing"))
	nodeConfigFrom(t, "rbac-1", "rbac")
	conditionOf(t, "rbac", "MissingPeerConfigs", metav1.ConditionTrue)
}
