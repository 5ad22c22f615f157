package operator_test

import (
	"os"
	"path/filepath"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"kbgp.io/kbgp/internal/operator"
)

// TestGeneratedRBACSuffices runs the operator as a user that holds nothing but the
// generated ClusterRole, so a missing marker fails here instead of in a cluster.
func TestGeneratedRBACSuffices(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(server.RepoRoot, "config", "rbac", "operator", "role.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var role rbacv1.ClusterRole
	if err := yaml.Unmarshal(data, &role); err != nil {
		t.Fatal(err)
	}
	role.Name = "rbac-test-operator"
	createObject(t, &role)
	createObject(t, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "rbac-test-operator"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "rbac-test-operator"}},
	})
	cfg, err := server.UserConfig("rbac-test-operator")
	if err != nil {
		t.Fatal(err)
	}
	startOperatorWithConfig(t, cfg, operator.Options{LeaderElect: true, LeaderElectionNamespace: "default"})

	createNode(t, "rbac-1", map[string]string{"rack": "rbac"})
	createObject(t, clusterConfig("rbac", "rbac", "rbac-missing"))
	nodeConfigFrom(t, "rbac-1", "rbac")
	conditionOf(t, "rbac", "MissingPeerConfigs", metav1.ConditionTrue)
}
