package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// Identity of an agent pod as the API server sees it: its ServiceAccount (from
// config/rbac/agent) and the node its token was bound to.
const (
	agentUser     = "system:serviceaccount:kbgp-system:kbgp-agent"
	nodeNameClaim = "authentication.kubernetes.io/node-name"
)

// TestAgentWritesOnlyItsOwnNodeConfig installs the agent's RBAC and the admission
// policy of config/admission for real and impersonates agents: one whose token names
// node A may write A's status but not B's, and one without the node-name claim may
// write none.
func TestAgentWritesOnlyItsOwnNodeConfig(t *testing.T) {
	ctx := context.Background()
	ensureNamespace(t, "kbgp-system")
	k := newKubectl(t, "admission")
	for _, base := range []string{"rbac/agent", "admission"} {
		k.run("apply", "--server-side", "-k", configDir(base))
		t.Cleanup(func() { k.run("delete", "-k", configDir(base)) })
	}
	for _, name := range []string{"vap-node-a", "vap-node-b"} {
		nc := nodeConfigWithStatus(name)
		if err := server.Client.Create(ctx, nc); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = server.Client.Delete(context.Background(), nc) })
	}
	onNodeA := agentClient(t, map[string][]string{nodeNameClaim: {"vap-node-a"}})

	// The API server starts enforcing a new policy within about a second.
	const foreign = "kbgp-agent on node vap-node-a may write only BGPNodeConfig vap-node-a, not vap-node-b"
	var err error
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if err = writeStatus(ctx, onNodeA, "vap-node-b"); err != nil && strings.Contains(err.Error(), foreign) {
			break
		}
	}
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), foreign) {
		t.Fatalf("agent of vap-node-a writing vap-node-b's status: got %v, want Forbidden with %q", err, foreign)
	}
	if err := writeStatus(ctx, onNodeA, "vap-node-a"); err != nil {
		t.Errorf("agent of vap-node-a writing its own status: %v", err)
	}

	const unbound = "the request carries no node-name claim"
	err = writeStatus(ctx, agentClient(t, nil), "vap-node-a")
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), unbound) {
		t.Errorf("agent without a node-name claim: got %v, want Forbidden with %q", err, unbound)
	}

	// The policy matches the agent's identity only: an administrator (or the operator)
	// still writes any node's status.
	if err := writeStatus(ctx, server.Client, "vap-node-b"); err != nil {
		t.Errorf("administrator writing vap-node-b's status: %v", err)
	}
}

// agentClient impersonates the agent's ServiceAccount with the given user extras, as
// the API server authenticates a pod's service-account token.
func agentClient(t *testing.T, extra map[string][]string) client.Client {
	return impersonate(t, agentUser, "kbgp-system", extra)
}

// impersonate returns a client acting as the ServiceAccount user of namespace.
func impersonate(t *testing.T, user, namespace string, extra map[string][]string) client.Client {
	t.Helper()
	cfg := rest.CopyConfig(server.Config)
	cfg.Impersonate = rest.ImpersonationConfig{
		UserName: user,
		Groups:   []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"},
		Extra:    extra,
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// writeStatus patches the status subresource of BGPNodeConfig name, as the agent's
// status writer does.
func writeStatus(ctx context.Context, c client.Client, name string) error {
	nc := &kbgpv1.BGPNodeConfig{ObjectMeta: metav1.ObjectMeta{Name: name}}
	patch := client.RawPatch(types.MergePatchType, []byte(`{"status":{"lastUpdateTime":"`+time.Now().UTC().Format(time.RFC3339)+`"}}`))
	return c.Status().Patch(ctx, nc, patch)
}
