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
	// last is the Lease as this renewer last wrote it: the next renewal updates it
	// without reading it first (one request instead of two every leaseRenewInterval,
	// 100 a second for 1,000 nodes: bench B10), and reads it again only after an update
	// failed (someone else changed it, or it is gone). Start's goroutine only.
	last *coordinationv1.Lease
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
	if l.last != nil {
		lease := l.last.DeepCopy()
		l.stamp(lease, now)
		if err := l.writer.Update(ctx, lease); err == nil {
			l.last = lease
			return nil
		}
		l.last = nil // read it again, now
	}
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
		return l.remember(lease, l.writer.Create(ctx, lease))
	}
	if err != nil {
		return err
	}
	l.stamp(lease, now)
	return l.remember(lease, l.writer.Update(ctx, lease))
}

// stamp makes the Lease this node's, renewed now.
func (l *LeaseRenewer) stamp(lease *coordinationv1.Lease, now metav1.MicroTime) {
	lease.Spec.RenewTime = &now
	lease.Spec.HolderIdentity = ptr.To(l.node)
	lease.Spec.LeaseDurationSeconds = ptr.To(int32(leaseDuration.Seconds()))
}

// remember keeps the Lease as written (with its new resourceVersion) when err is nil.
func (l *LeaseRenewer) remember(lease *coordinationv1.Lease, err error) error {
	if err == nil {
		l.last = lease
	}
	return err
}
