package report

import (
	"context"
	"log/slog"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kbgp.io/kbgp/internal/contract"
)

// Liveness Lease timing: renewed every leaseRenewInterval, stale after leaseDuration.
const (
	leaseRenewInterval = 10 * time.Second
	leaseDuration      = 40 * time.Second
)

// LeaseRenewer keeps the agent's Lease fresh (manager.Runnable). It reads with the
// API reader, so the agent needs only get/create/update on Leases in its namespace,
// never list/watch.
type LeaseRenewer struct {
	reader    client.Reader
	writer    client.Client
	namespace string
	node      string
	logger    *slog.Logger
	// renewed is called after each successful renewal.
	renewed func(context.Context)
}

// NewLeaseRenewer keeps node's Lease in namespace fresh, reading with reader and
// writing with writer; renewed is called after each successful renewal.
func NewLeaseRenewer(reader client.Reader, writer client.Client, namespace, node string, renewed func(context.Context), logger *slog.Logger) *LeaseRenewer {
	return &LeaseRenewer{reader: reader, writer: writer, namespace: namespace, node: node, renewed: renewed, logger: logger}
}

// Start renews until ctx ends.
func (l *LeaseRenewer) Start(ctx context.Context) error {
	for {
		switch err := l.renew(ctx); {
		case err == nil:
			if l.renewed != nil {
				l.renewed(ctx)
			}
		case ctx.Err() == nil:
			l.logger.Warn("renewing the agent Lease", "lease", contract.AgentLeaseName(l.node), "error", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(leaseRenewInterval):
		}
	}
}

func (l *LeaseRenewer) renew(ctx context.Context) error {
	now := metav1.NewMicroTime(time.Now())
	lease := &coordinationv1.Lease{}
	err := l.reader.Get(ctx, types.NamespacedName{Namespace: l.namespace, Name: contract.AgentLeaseName(l.node)}, lease)
	if apierrors.IsNotFound(err) {
		lease = &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Namespace: l.namespace, Name: contract.AgentLeaseName(l.node)},
			Spec: coordinationv1.LeaseSpec{
				HolderIdentity: ptr.To(l.node), LeaseDurationSeconds: ptr.To(int32(leaseDuration.Seconds())),
				AcquireTime: &now, RenewTime: &now,
			},
		}
		return l.writer.Create(ctx, lease)
	}
	if err != nil {
		return err
	}
	lease.Spec.RenewTime = &now
	lease.Spec.HolderIdentity = ptr.To(l.node)
	lease.Spec.LeaseDurationSeconds = ptr.To(int32(leaseDuration.Seconds()))
	return l.writer.Update(ctx, lease)
}
