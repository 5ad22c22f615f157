package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kbgp.io/kbgp/internal/contract"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestAgentWritesOnlyItsOwnLeaseAndEvents installs the agent's RBAC and the admission
// policy for real and impersonates the agent of node A: it may create and renew its own
// Lease, but not node B's nor the operator's leader-election Lease; it may record Events
// about its own BGPNodeConfig and Node in default, but not about another node's, nor
// anywhere else. The policy also holds for an agent installed in another namespace.
func TestAgentWritesOnlyItsOwnLeaseAndEvents(t *testing.T) {
	ctx := context.Background()
	ensureNamespace(t, "kbgp-system")
	k := newKubectl(t, "admission-leases")
	for _, base := range []string{"rbac/agent", "admission"} {
		k.run("apply", "--server-side", "-k", configDir(base))
		t.Cleanup(func() { k.run("delete", "-k", configDir(base)) })
	}
	for _, name := range []string{contract.AgentLeaseName("lease-node-b"), "kbgp-operator"} {
		l := lease("kbgp-system", name)
		if err := server.Client.Create(ctx, l); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = server.Client.Delete(context.Background(), l) })
	}
	onNodeA := agentClient(t, map[string][]string{nodeNameClaim: {"lease-node-a"}})

	// The API server starts enforcing a policy change within about a second.
	const foreignLease = "kbgp-agent on node lease-node-a may write only Lease kbgp-system/kbgp-agent-lease-node-a, not kbgp-system/kbgp-agent-lease-node-b"
	eventuallyForbidden(t, foreignLease, func() error { return renew(ctx, onNodeA, contract.AgentLeaseName("lease-node-b")) })

	own := lease("kbgp-system", contract.AgentLeaseName("lease-node-a"))
	if err := onNodeA.Create(ctx, own); err != nil {
		t.Fatalf("agent of lease-node-a creating its own Lease: %v", err)
	}
	t.Cleanup(func() { _ = server.Client.Delete(context.Background(), own) })
	if err := renew(ctx, onNodeA, own.Name); err != nil {
		t.Errorf("agent of lease-node-a renewing its own Lease: %v", err)
	}
	err := renew(ctx, onNodeA, "kbgp-operator")
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "may write only Lease kbgp-system/kbgp-agent-lease-node-a, not kbgp-system/kbgp-operator") {
		t.Errorf("agent renewing the operator's leader-election Lease: got %v, want Forbidden by the policy", err)
	}

	if err := onNodeA.Create(ctx, event("default", "BGPNodeConfig", "lease-node-a")); err != nil {
		t.Errorf("event about its own BGPNodeConfig: %v", err)
	}
	if err := onNodeA.Create(ctx, event("default", "Node", "lease-node-a")); err != nil {
		t.Errorf("event about its own Node: %v", err)
	}
	const foreignEvent = "may record Events only in default about BGPNodeConfig or Node lease-node-a"
	for _, ev := range []*corev1.Event{event("default", "BGPNodeConfig", "lease-node-b"), event("default", "Secret", "lease-node-a")} {
		err := onNodeA.Create(ctx, ev)
		if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), foreignEvent) {
			t.Errorf("event about %s %s: got %v, want Forbidden with %q", ev.InvolvedObject.Kind, ev.InvolvedObject.Name, err, foreignEvent)
		}
	}
	// Events outside default are not even in the agent's RBAC.
	if err := onNodeA.Create(ctx, event("kbgp-system", "BGPNodeConfig", "lease-node-a")); !apierrors.IsForbidden(err) {
		t.Errorf("event in kbgp-system: got %v, want Forbidden", err)
	}

	t.Run("agent installed in another namespace", func(t *testing.T) {
		ensureNamespace(t, "kbgp-other")
		binding := &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "kbgp-agent-other-ns"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "kbgp-agent"},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: "kbgp-other", Name: "kbgp-agent"}},
		}
		events := &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "kbgp-agent-other-ns"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "kbgp-agent"},
			Subjects:   binding.Subjects,
		}
		for _, b := range []client.Object{binding, events} {
			if err := server.Client.Create(ctx, b); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = server.Client.Delete(context.Background(), b) })
		}
		other := impersonate(t, "system:serviceaccount:kbgp-other:kbgp-agent", "kbgp-other", map[string][]string{nodeNameClaim: {"lease-node-a"}})
		const foreign = "kbgp-agent on node lease-node-a may record Events only in default about BGPNodeConfig or Node lease-node-a"
		eventuallyForbidden(t, foreign, func() error { return other.Create(ctx, event("default", "BGPNodeConfig", "lease-node-b")) })
		if err := other.Create(ctx, event("default", "BGPNodeConfig", "lease-node-a")); err != nil {
			t.Errorf("event about its own BGPNodeConfig: %v", err)
		}
	})
}

// eventuallyForbidden retries write until it is refused with want (RBAC and policy
// changes take about a second to be enforced), and fails the test if it never is.
func eventuallyForbidden(t *testing.T, want string, write func() error) {
	t.Helper()
	var err error
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if err = write(); err != nil && strings.Contains(err.Error(), want) {
			break
		}
	}
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want Forbidden with %q", err, want)
	}
}

func lease(namespace, name string) *coordinationv1.Lease {
	return &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec:       coordinationv1.LeaseSpec{HolderIdentity: ptr(name), LeaseDurationSeconds: ptr[int32](40)},
	}
}

// renew updates a Lease's renewTime as the agent's lease renewer does.
func renew(ctx context.Context, c client.Client, name string) error {
	l := &coordinationv1.Lease{}
	if err := server.Client.Get(ctx, client.ObjectKey{Namespace: "kbgp-system", Name: name}, l); err != nil {
		return err
	}
	l.Spec.RenewTime = &metav1.MicroTime{Time: time.Now()}
	return c.Update(ctx, l)
}

// event is a core/v1 Event about a cluster-scoped object, as client-go's recorder
// writes it.
func event(namespace, kind, name string) *corev1.Event {
	now := metav1.Now()
	return &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Namespace: namespace, GenerateName: name + "."},
		InvolvedObject: corev1.ObjectReference{Kind: kind, Name: name},
		Reason:         "Test", Message: "admission test", Type: corev1.EventTypeNormal,
		FirstTimestamp: now, LastTimestamp: now, Count: 1,
		Source: corev1.EventSource{Component: "kbgp-agent"},
	}
}
