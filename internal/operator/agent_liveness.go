package operator

import (
	"context"
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/contract"
	"kbgp.io/kbgp/internal/metrics"
	"kbgp.io/kbgp/internal/nodestatus"
	"kbgp.io/kbgp/internal/status"
)

// livenessFieldManager owns the Ready condition the operator sets on a silent agent's
// node. It is not FieldManager: the operator's failedResources apply would otherwise
// remove the condition (server-side apply drops what a manager stops sending). The
// agent takes Ready back with a forced apply when it reports again.
const livenessFieldManager = FieldManager + "-liveness"

// AgentLivenessReconciler watches the agents' Leases and marks a node's Ready Unknown
// (AgentNotReporting) once its agent's Lease has expired, so a status written by an
// agent that is gone is never read as current. The request key is the Lease's.
type AgentLivenessReconciler struct {
	Client   client.Client
	Recorder record.EventRecorder
}

// Reconcile checks one agent Lease: while it is fresh it looks again when it would
// expire; once expired it marks the node's Ready, once.
func (r *AgentLivenessReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	l := &coordinationv1.Lease{}
	if err := r.Client.Get(ctx, req.NamespacedName, l); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	node, ok := leaseNode(l)
	if !ok {
		return reconcile.Result{}, nil
	}
	now := time.Now()
	if expiry, ok := status.LeaseExpiry(l); ok && now.Before(expiry) {
		// A renewal is a Lease event and reconciles before this timer if it comes first.
		return reconcile.Result{RequeueAfter: expiry.Sub(now) + time.Second}, nil
	}
	nc := &kbgpv1.BGPNodeConfig{}
	if err := r.Client.Get(ctx, types.NamespacedName{Name: node}, nc); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if status.MarkedNotReporting(nc.Status.Conditions) {
		return reconcile.Result{}, nil
	}
	cond := status.NotReportingCondition(l, nc.Generation, now)
	// Ready alone: the agent's other conditions and fields stay as they are.
	err := nodestatus.Apply(ctx, r.Client, node, livenessFieldManager, &kbgpv1.BGPNodeConfigStatus{Conditions: []metav1.Condition{cond}})
	if err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(fmt.Errorf("mark BGPNodeConfig %s not reporting: %w", node, err))
	}
	r.Recorder.Event(nc, corev1.EventTypeWarning, kbgpv1.ReasonAgentNotReporting, cond.Message)
	return reconcile.Result{}, nil
}

// leaseNode is the node of an agent's Lease: its holder, when the Lease bears the
// agent Lease name of that holder (any other Lease of the namespace, such as the
// operator's own, is not an agent's).
func leaseNode(l *coordinationv1.Lease) (string, bool) {
	if l.Spec.HolderIdentity == nil || l.Name != contract.AgentLeaseName(*l.Spec.HolderIdentity) {
		return "", false
	}
	return *l.Spec.HolderIdentity, true
}

// SetupWithManager registers the agent liveness controller on the agents' Leases (the
// manager's cache holds only those of the agent namespace).
func (r *AgentLivenessReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("agentliveness").
		For(&coordinationv1.Lease{}).
		Complete(metrics.Instrument(r))
}
