package agent_test

import (
	"context"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/testing/wait"
)

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
	wait.Eventually(t, 30*time.Second, "the Secret reported missing", func() bool {
		return slices.ContainsFunc(getStatus(t, node).FailedResources, func(f kbgpv1.FailedResource) bool { return f.Kind == "Secret" && f.Name == "md5-follow" })
	})
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "md5-follow"}, Data: map[string][]byte{"password": []byte("one")}}
	create(t, s)
	wait.Eventually(t, 30*time.Second, "the peer started with the new Secret", func() bool {
		p, ok := r.Peer(addrA)
		return ok && p.Password == "one"
	})
	s.Data["password"] = []byte("two")
	if err := server.Client.Update(ctx, s); err != nil {
		t.Fatal(err)
	}
	wait.Eventually(t, 30*time.Second, "the password change applied", func() bool {
		p, ok := r.Peer(addrA)
		return ok && p.Password == "two"
	})
}
