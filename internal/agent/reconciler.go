package agent

import (
	"context"
	"fmt"
	"log/slog"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/intent"
	"kbgp.io/kbgp/internal/manager"
	"kbgp.io/kbgp/internal/metrics"
)

// reconciler makes this node's speakers match its BGPNodeConfig.
type reconciler struct {
	client    client.Client
	nodeName  string
	namespace string
	speakers  *manager.Manager
	status    *statusWriter
	logger    *slog.Logger
	// previous is the last desired state, which intent.Build keeps for peers whose
	// objects went missing (the last good configuration keeps running).
	previous bgp.Desired
}

// setup registers the controller. Every watched kind maps to the one key, so a burst
// of events is one reconcile.
func (r *reconciler) setup(mgr ctrl.Manager) error {
	toNode := handler.EnqueueRequestsFromMapFunc(func(context.Context, client.Object) []reconcile.Request {
		return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: r.nodeName}}}
	})
	return ctrl.NewControllerManagedBy(mgr).
		Named("bgpnodeconfig-agent").
		For(&kbgpv1.BGPNodeConfig{}).
		Watches(&corev1.Node{}, toNode).
		Watches(&kbgpv1.BGPPeerConfig{}, toNode).
		Watches(&kbgpv1.BGPAdvertisement{}, toNode).
		Watches(&corev1.Secret{}, toNode).
		Complete(metrics.Instrument(r))
}

// Reconcile is fetch → intent.Build → manager.Apply → status. A missing BGPNodeConfig
// means this node runs no BGP: every speaker stops with a Cease.
func (r *reconciler) Reconcile(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
	in, err := r.fetch(ctx)
	if err != nil {
		return reconcile.Result{}, err
	}
	if in.NodeConfig == nil {
		r.previous = bgp.Desired{}
		r.status.Update(nil, intent.Result{}, nil)
		return reconcile.Result{}, r.speakers.Apply(ctx, bgp.Desired{})
	}
	in.Previous = r.previous
	res := intent.Build(in)
	applyErr := r.speakers.Apply(ctx, res.Desired)
	r.previous = res.Desired
	r.status.Update(in.NodeConfig, res, applyErr)
	if applyErr != nil {
		return reconcile.Result{}, fmt.Errorf("apply BGP configuration: %w", applyErr)
	}
	return reconcile.Result{}, nil
}

// fetch reads what intent.Build needs from the cache. Only the referenced peer
// configs and Secrets are passed on.
func (r *reconciler) fetch(ctx context.Context) (intent.Input, error) {
	var in intent.Input
	nc := &kbgpv1.BGPNodeConfig{}
	if err := r.client.Get(ctx, types.NamespacedName{Name: r.nodeName}, nc); err != nil {
		if apierrors.IsNotFound(err) {
			return in, nil
		}
		return in, fmt.Errorf("get BGPNodeConfig %s: %w", r.nodeName, err)
	}
	in.NodeConfig = nc
	node := &corev1.Node{}
	if err := r.client.Get(ctx, types.NamespacedName{Name: r.nodeName}, node); err != nil {
		if !apierrors.IsNotFound(err) {
			return in, fmt.Errorf("get Node %s: %w", r.nodeName, err)
		}
		node.Name = r.nodeName
	}
	in.Node = node
	in.PeerConfigs = map[string]*kbgpv1.BGPPeerConfig{}
	in.Secrets = map[string]*corev1.Secret{}
	for _, inst := range nc.Spec.BGPInstances {
		for _, p := range inst.Peers {
			if p.PeerConfigRef == nil {
				continue
			}
			if err := r.fetchPeerConfig(ctx, p.PeerConfigRef.Name, &in); err != nil {
				return in, err
			}
		}
	}
	ads := &kbgpv1.BGPAdvertisementList{}
	if err := r.client.List(ctx, ads); err != nil {
		return in, fmt.Errorf("list BGPAdvertisements: %w", err)
	}
	in.Advertisements = ads.Items
	return in, nil
}

func (r *reconciler) fetchPeerConfig(ctx context.Context, name string, in *intent.Input) error {
	if _, done := in.PeerConfigs[name]; done {
		return nil
	}
	pc := &kbgpv1.BGPPeerConfig{}
	if err := r.client.Get(ctx, types.NamespacedName{Name: name}, pc); err != nil {
		return client.IgnoreNotFound(err)
	}
	in.PeerConfigs[name] = pc
	if pc.Spec.AuthSecretRef == nil {
		return nil
	}
	s := &corev1.Secret{}
	err := r.client.Get(ctx, types.NamespacedName{Namespace: r.namespace, Name: *pc.Spec.AuthSecretRef}, s)
	if err != nil {
		return client.IgnoreNotFound(err)
	}
	in.Secrets[s.Name] = s
	return nil
}
