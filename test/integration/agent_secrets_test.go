package integration

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestAgentTokenReadsTheMD5SecretsOfItsNamespace pins down what an agent's token may do
// with Secrets, not what the agent does (it watches only the Secrets its peer configs
// name): with the generated RBAC, node A's token reads and lists every Secret of
// kbgp-system, node B's MD5 key included, and none elsewhere. RBAC cannot grant "the
// Secrets this node's peer configs name", and the admission policy cannot limit reads;
// docs/security.md says so and how to narrow the Role with resourceNames.
func TestAgentTokenReadsTheMD5SecretsOfItsNamespace(t *testing.T) {
	ctx := context.Background()
	ensureNamespace(t, "kbgp-system")
	k := newKubectl(t, "secrets")
	k.run("apply", "--server-side", "-k", configDir("rbac/agent"))
	t.Cleanup(func() { k.run("delete", "-k", configDir("rbac/agent")) })
	for _, s := range []*corev1.Secret{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "kbgp-system", Name: "md5-node-b"}, StringData: map[string]string{"password": "b-key"}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "elsewhere"}, StringData: map[string]string{"password": "x"}},
	} {
		if err := server.Client.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = server.Client.Delete(context.Background(), s) })
	}
	onNodeA := agentClient(t, map[string][]string{nodeNameClaim: {"secrets-node-a"}})

	var other corev1.Secret
	if err := onNodeA.Get(ctx, client.ObjectKey{Namespace: "kbgp-system", Name: "md5-node-b"}, &other); err != nil || string(other.Data["password"]) != "b-key" {
		t.Errorf("node A's token reading node B's MD5 Secret: %v (this is the documented limit; if RBAC now refuses it, update docs/security.md)", err)
	}
	var list corev1.SecretList
	if err := onNodeA.List(ctx, &list, client.InNamespace("kbgp-system")); err != nil {
		t.Errorf("node A's token listing kbgp-system's Secrets: %v", err)
	}
	if err := onNodeA.Get(ctx, client.ObjectKey{Namespace: "default", Name: "elsewhere"}, &other); !apierrors.IsForbidden(err) {
		t.Errorf("node A's token reading a Secret outside kbgp-system: got %v, want Forbidden", err)
	}
}
