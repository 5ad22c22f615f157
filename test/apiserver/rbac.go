package apiserver

import (
	"bytes"
	"context"
	"fmt"
	"os"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// GrantGeneratedRoles creates the ClusterRole and Roles of a controller-gen role file
// under the user's name and binds them to the user, so a test can run a component
// with exactly the generated permissions and nothing else.
func (s *Server) GrantGeneratedRoles(ctx context.Context, user, roleFile string) error {
	data, err := os.ReadFile(roleFile)
	if err != nil {
		return err
	}
	subject := []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}}
	for _, doc := range bytes.Split(data, []byte("\n---\n")) {
		var meta metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &meta); err != nil {
			return fmt.Errorf("%s: %w", roleFile, err)
		}
		switch meta.Kind {
		case "ClusterRole":
			var role rbacv1.ClusterRole
			if err := yaml.Unmarshal(doc, &role); err != nil {
				return err
			}
			role.ObjectMeta = metav1.ObjectMeta{Name: user}
			binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: user}, Subjects: subject,
				RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: user}}
			if err := s.createAll(ctx, &role, binding); err != nil {
				return err
			}
		case "Role":
			var role rbacv1.Role
			if err := yaml.Unmarshal(doc, &role); err != nil {
				return err
			}
			if err := s.EnsureNamespace(ctx, role.Namespace); err != nil {
				return err
			}
			role.ObjectMeta = metav1.ObjectMeta{Name: user, Namespace: role.Namespace}
			binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: user, Namespace: role.Namespace}, Subjects: subject,
				RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: user}}
			if err := s.createAll(ctx, &role, binding); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *Server) createAll(ctx context.Context, objs ...client.Object) error {
	for _, o := range objs {
		if err := s.Client.Create(ctx, o); err != nil {
			return fmt.Errorf("create %T %s: %w", o, o.GetName(), err)
		}
	}
	return nil
}

// EnsureNamespace creates namespace ns unless it exists.
func (s *Server) EnsureNamespace(ctx context.Context, ns string) error {
	err := s.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create namespace %s: %w", ns, err)
	}
	return nil
}
