package operator

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/nodestatus"
	"kbgp.io/kbgp/internal/render"
)

// FieldManager is the operator's name in managedFields.
const FieldManager = "kbgp-operator"

// overrideKind is the kind of the failedResources entries the operator owns.
const overrideKind = "BGPNodeConfigOverride"

// NodeConfigReconciler keeps BGPNodeConfig/<node> equal to the render of the cluster
// config that wins the node, with the node's override applied. The request key is the
// node name.
type NodeConfigReconciler struct {
	Client client.Client
}

// Reconcile renders one node's config and writes it only if it differs.
func (r *NodeConfigReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	node := newNodeMetadata()
	if err := r.Client.Get(ctx, req.NamespacedName, node); err != nil {
		if apierrors.IsNotFound(err) {
			return reconcile.Result{}, r.deleteNodeConfig(ctx, req.Name)
		}
		return reconcile.Result{}, fmt.Errorf("get node %s: %w", req.Name, err)
	}
	if node.DeletionTimestamp != nil {
		return reconcile.Result{}, r.deleteNodeConfig(ctx, req.Name)
	}

	var configs kbgpv1.BGPClusterConfigList
	if err := r.Client.List(ctx, &configs); err != nil {
		return reconcile.Result{}, fmt.Errorf("list cluster configs: %w", err)
	}
	selectors, errs := render.ParseSelectors(configs.Items)
	for _, err := range errs {
		log.FromContext(ctx).Error(err, "cluster config selects no node")
	}
	winner := render.AssignNode(selectors, node.Labels).Winner
	if winner == nil {
		return reconcile.Result{}, r.deleteNodeConfig(ctx, req.Name)
	}

	var overrides kbgpv1.BGPNodeConfigOverrideList
	if err := r.Client.List(ctx, &overrides, client.MatchingFields{overrideNodeRefIndex: node.Name}); err != nil {
		return reconcile.Result{}, fmt.Errorf("list overrides of node %s: %w", node.Name, err)
	}
	applied, ignored := render.PickOverride(overrides.Items)
	desired, unmatched := render.NodeConfig(winner, render.Node{Name: node.Name, UID: node.UID}, applied)

	current, err := r.applySpec(ctx, desired)
	if err != nil {
		return reconcile.Result{}, err
	}
	return reconcile.Result{}, r.applyFailedOverrides(ctx, current, kbgpv1.NormalizeFailedResources(append(ignored, unmatched...), kbgpv1.MaxOperatorFailedResources))
}

// applySpec creates or updates the node config so that its spec, cluster-config label
// and Node owner reference equal desired, leaving everything else (other labels, other
// owners, status) alone. It writes nothing when they already match.
func (r *NodeConfigReconciler) applySpec(ctx context.Context, desired *kbgpv1.BGPNodeConfig) (*kbgpv1.BGPNodeConfig, error) {
	var current kbgpv1.BGPNodeConfig
	err := r.Client.Get(ctx, client.ObjectKeyFromObject(desired), &current)
	if apierrors.IsNotFound(err) {
		if err := r.Client.Create(ctx, desired, client.FieldOwner(FieldManager)); err != nil {
			return nil, fmt.Errorf("create BGPNodeConfig %s: %w", desired.Name, err)
		}
		return desired, nil
	}
	if err != nil {
		return nil, fmt.Errorf("get BGPNodeConfig %s: %w", desired.Name, err)
	}
	updated := current.DeepCopy()
	updated.Spec = desired.Spec
	if updated.Labels == nil {
		updated.Labels = map[string]string{}
	}
	updated.Labels[kbgpv1.ClusterConfigLabel] = desired.Labels[kbgpv1.ClusterConfigLabel]
	updated.OwnerReferences = withNodeOwner(updated.OwnerReferences, desired.OwnerReferences[0])
	if equality.Semantic.DeepEqual(updated.Spec, current.Spec) &&
		equality.Semantic.DeepEqual(updated.Labels, current.Labels) &&
		equality.Semantic.DeepEqual(updated.OwnerReferences, current.OwnerReferences) {
		return &current, nil
	}
	if err := r.Client.Update(ctx, updated, client.FieldOwner(FieldManager)); err != nil {
		return nil, fmt.Errorf("update BGPNodeConfig %s: %w", desired.Name, err)
	}
	log.FromContext(ctx).V(1).Info("updated node config", "clusterConfig", desired.Labels[kbgpv1.ClusterConfigLabel])
	return updated, nil
}

// withNodeOwner replaces any Node owner reference with owner: a node re-created under
// the same name has a new uid, and its config must follow it.
func withNodeOwner(refs []metav1.OwnerReference, owner metav1.OwnerReference) []metav1.OwnerReference {
	out := make([]metav1.OwnerReference, 0, len(refs)+1)
	for _, ref := range refs {
		if ref.Kind == owner.Kind && ref.APIVersion == owner.APIVersion {
			continue
		}
		out = append(out, ref)
	}
	return append(out, owner)
}

// applyFailedOverrides server-side applies the operator's failedResources entries
// (ignored or unmatched overrides) to the node config's status. failedResources is a
// map keyed by (kind, name), so the agent owns its own entries and neither writer
// removes the other's.
func (r *NodeConfigReconciler) applyFailedOverrides(ctx context.Context, nc *kbgpv1.BGPNodeConfig, want []kbgpv1.FailedResource) error {
	var have []kbgpv1.FailedResource
	for _, fr := range nc.Status.FailedResources {
		if fr.Kind == overrideKind {
			have = append(have, fr)
		}
	}
	if equality.Semantic.DeepEqual(kbgpv1.NormalizeFailedResources(have, kbgpv1.MaxOperatorFailedResources), want) {
		return nil
	}
	if err := nodestatus.Apply(ctx, r.Client, nc.Name, FieldManager, &kbgpv1.BGPNodeConfigStatus{FailedResources: want}, "failedResources"); err != nil {
		return fmt.Errorf("apply failedResources of BGPNodeConfig %s: %w", nc.Name, err)
	}
	return nil
}

// deleteNodeConfig removes the config of a node that no cluster config selects any
// more (or that is gone: the garbage collector would also remove it through the owner
// reference, but the operator does not depend on one running).
func (r *NodeConfigReconciler) deleteNodeConfig(ctx context.Context, name string) error {
	nc := &kbgpv1.BGPNodeConfig{}
	if err := r.Client.Get(ctx, types.NamespacedName{Name: name}, nc); err != nil {
		return client.IgnoreNotFound(err)
	}
	if err := r.Client.Delete(ctx, nc, client.Preconditions{UID: &nc.UID}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete BGPNodeConfig %s: %w", name, err)
	}
	log.FromContext(ctx).Info("deleted node config: no cluster config selects the node")
	return nil
}
