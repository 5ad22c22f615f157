package integration

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// kubectl runs the kubectl built with the test assets as a member of system:masters,
// the way an administrator applies kbgp's manifests.
type kubectl struct {
	t          *testing.T
	kubeconfig string
}

// newKubectl writes a kubeconfig for a new administrator named user.
func newKubectl(t *testing.T, user string) *kubectl {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := server.WriteKubeconfig(path, user); err != nil {
		t.Fatal(err)
	}
	return &kubectl{t: t, kubeconfig: path}
}

// run runs kubectl with args and returns its combined output; a failure fails the test.
func (k *kubectl) run(args ...string) string {
	k.t.Helper()
	cmd := exec.Command(server.Kubectl(), append([]string{"--kubeconfig", k.kubeconfig}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		k.t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// configDir is a kustomize base under config/.
func configDir(base string) string { return filepath.Join(server.RepoRoot, "config", base) }

// ensureNamespace creates namespace name unless it exists; the manifests' namespaced
// objects live in kbgp-system, which a server-side dry run cannot create for them.
func ensureNamespace(t *testing.T, name string) {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := server.Client.Create(context.Background(), ns); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}
