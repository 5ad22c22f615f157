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

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
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

	s, err := w.Secret("md5-used")
	if err != nil {
		t.Fatalf("reading the one Secret the Role names: %v", err)
	}
	if string(s.Data["password"]) != "one" {
		t.Fatalf("Secret(md5-used) = %v", s)
	}
	if got := w.Watched(); !slices.Equal(got, []string{"md5-used"}) {
		t.Errorf("watched %v, want only md5-used", got)
	}

	before := changes.Load()
	if err := server.Client.Update(ctx, secret("md5-used", "two")); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "the password change seen", func() bool {
		got, err := w.Secret("md5-used")
		return err == nil && got != nil && string(got.Data["password"]) == "two" && changes.Load() > before
	})

	w.Keep()
	if got := w.Watched(); len(got) != 0 {
		t.Errorf("watched after no peer config names a Secret: %v", got)
	}
}

// TestAgentFollowsItsSecrets: a peer whose Secret is missing starts when the Secret
// appears, and a password change reaches the peer — both through the watch of the
// named Secret alone.
func TestAgentFollowsItsSecrets(t *testing.T) {
	const node = "secret-follow"
	ensureNamespace(t)
	ctx := context.Background()
	create(t, testNode(node), peerConfig("pc-secret-follow", 179, "md5-follow"), nodeConfig(node, peer("tor", addrA, 65010, "pc-secret-follow")))
	routers, _ := startAgent(t, server.Config, node)
	r := speaker(t, routers)
	eventually(t, 30*time.Second, "the Secret reported missing", func() bool {
		return slices.ContainsFunc(getStatus(t, node).FailedResources, func(f kbgpv1.FailedResource) bool { return f.Kind == "Secret" && f.Name == "md5-follow" })
	})
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "md5-follow"}, Data: map[string][]byte{"password": []byte("one")}}
	create(t, s)
	eventually(t, 30*time.Second, "the peer started with the new Secret", func() bool {
		p, ok := r.Peer(addrA)
		return ok && p.Password == "one"
	})
	s.Data["password"] = []byte("two")
	if err := server.Client.Update(ctx, s); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the password change applied", func() bool {
		p, ok := r.Peer(addrA)
		return ok && p.Password == "two"
	})
}
