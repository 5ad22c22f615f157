package agent_test

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"kbgp.io/kbgp/internal/agent"
)

// TestSecretWatchReadsOnlyNamedSecrets runs the watch as a user whose Role allows get,
// list and watch of one Secret name only: it can serve that Secret (so every request it
// makes names it) and follows its changes, while the namespace's other Secrets stay
// unread; a name no peer config uses any more stops being watched.
func TestSecretWatchReadsOnlyNamedSecrets(t *testing.T) {
	ensureNamespace(t)
	ctx := context.Background()
	secret := func(name, pw string) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}, Data: map[string][]byte{"password": []byte(pw)}}
	}
	create(t, secret("md5-used", "one"), secret("md5-other", "secret of someone else"),
		&rbacv1.Role{
			ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "md5-used-only"},
			Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{"md5-used"}, Verbs: []string{"get", "list", "watch"}}},
		},
		&rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "md5-used-only"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "md5-used-only"},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "md5-used-reader"}},
		})
	cfg, err := server.UserConfig("md5-used-reader")
	if err != nil {
		t.Fatal(err)
	}
	var changes atomic.Int32
	w := agent.NewSecretWatch(kubernetes.NewForConfigOrDie(cfg), namespace, func() { changes.Add(1) })
	t.Cleanup(w.Stop)

	if err := w.Want("md5-used"); err != nil {
		t.Fatalf("watching the one Secret the Role names: %v", err)
	}
	if s, ok := w.Get("md5-used"); !ok || string(s.Data["password"]) != "one" {
		t.Fatalf("Get(md5-used) = %v, %v", s, ok)
	}
	if _, ok := w.Get("md5-other"); ok {
		t.Error("a Secret no peer config names is readable through the watch")
	}

	before := changes.Load()
	s := secret("md5-used", "two")
	if err := server.Client.Update(ctx, s); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "the password change seen", func() bool {
		got, ok := w.Get("md5-used")
		return ok && string(got.Data["password"]) == "two" && changes.Load() > before
	})

	if err := w.Want(); err != nil {
		t.Fatal(err)
	}
	if got := w.Watched(); !slices.Equal(got, nil) {
		t.Errorf("watched after no peer config names a Secret: %v", got)
	}
	if _, ok := w.Get("md5-used"); ok {
		t.Error("an unwatched Secret is still served")
	}
}
