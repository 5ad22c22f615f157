package nodebgp_test

import (
	"context"
	"os"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"kbgp.io/kbgp/internal/agent/nodebgp"
	"kbgp.io/kbgp/internal/testing/wait"
	"kbgp.io/kbgp/test/apiserver"
)

const namespace = "kbgp-system"

// server is one real kube-apiserver + etcd for the package's tests.
var server *apiserver.Server

func TestMain(m *testing.M) {
	log.SetLogger(logr.Discard())
	os.Exit(apiserver.RunTests(m, "nodebgp tests", func(s *apiserver.Server) { server = s }))
}

func ensureNamespace(t *testing.T) {
	t.Helper()
	if err := server.EnsureNamespace(context.Background(), namespace); err != nil {
		t.Fatal(err)
	}
}

func create(t *testing.T, objs ...client.Object) {
	t.Helper()
	for _, o := range objs {
		if err := server.Client.Create(context.Background(), o); err != nil {
			t.Fatalf("create %T %s: %v", o, o.GetName(), err)
		}
		t.Cleanup(func() { _ = server.Client.Delete(context.Background(), o) })
	}
}

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
	w := nodebgp.NewSecretWatch(kubernetes.NewForConfigOrDie(cfg), namespace, func() { changes.Add(1) })
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
	wait.Eventually(t, 10*time.Second, "the password change seen", func() bool {
		got, err := w.Secret("md5-used")
		return err == nil && got != nil && string(got.Data["password"]) == "two" && changes.Load() > before
	})

	w.Keep()
	if got := w.Watched(); len(got) != 0 {
		t.Errorf("watched after no peer config names a Secret: %v", got)
	}
}
