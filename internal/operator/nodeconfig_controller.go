package operator

import (
	"context"
	"fmt"
	"reflect"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/metrics"
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
	// Workers is how many nodes are rendered in parallel (at least 1): each reconcile
	// reads the cache and writes one object, and keeps no state between calls.
	Workers int
}

// Reconcile renders one node's config and writes it only if it differs.
func (r *NodeConfigReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	node := &corev1.Node{}
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
	if err := r.renderMesh(ctx, desired, winner, selectors, node); err != nil {
		return reconcile.Result{}, err
	}

	current, err := r.applySpec(ctx, desired)
	if err != nil {
		return reconcile.Result{}, err
	}
	return reconcile.Result{}, r.applyFailedOverrides(ctx, current, kbgpv1.NormalizeFailedResources(append(ignored, unmatched...), kbgpv1.MaxOperatorFailedResources))
}

// renderMesh adds the mesh peers when an instance of the winner has a mesh: the other
// nodes the winner wins, from the cache.
func (r *NodeConfigReconciler) renderMesh(ctx context.Context, nc *kbgpv1.BGPNodeConfig, cc *kbgpv1.BGPClusterConfig, selectors []render.ClusterConfigSelector, node *corev1.Node) error {
	if !hasMesh(cc) {
		return nil
	}
	nodes, err := listNodes(ctx, r.Client)
	if err != nil {
		return err
	}
	all := make([]render.MeshNode, 0, len(nodes))
	for i := range nodes {
		if nodes[i].DeletionTimestamp == nil {
			all = append(all, meshNode(&nodes[i]))
		}
	}
	return render.WithMesh(nc, cc, meshNode(node), render.MeshMembers(cc, selectors, all))
}

// hasMesh reports whether an instance of cc has its mesh enabled.
func hasMesh(cc *kbgpv1.BGPClusterConfig) bool {
	for _, inst := range cc.Spec.BGPInstances {
		if inst.Mesh != nil && inst.Mesh.Enabled {
			return true
		}
	}
	return false
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

// SetupWithManager registers the node config controller: a node is rendered when it is
// created, deleted, relabelled or readdressed, when a node of its mesh is, when its node config is edited by someone else, and
// when a cluster config or override that can apply to it changes.
func (r *NodeConfigReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &kbgpv1.BGPNodeConfigOverride{}, overrideNodeRefIndex, indexOverrideNodeRef); err != nil {
		return fmt.Errorf("index overrides by node: %w", err)
	}
	return ctrl.NewControllerManagedBy(mgr).
		Named("nodeconfig").
		WithOptions(controller.Options{MaxConcurrentReconciles: max(r.Workers, 1)}).
		For(&corev1.Node{}, builder.WithPredicates(nodeMembershipChanged)).
		Watches(&corev1.Node{}, handler.EnqueueRequestsFromMapFunc(meshNeighbours(r.Client)), builder.WithPredicates(nodeMembershipChanged)).
		Watches(&kbgpv1.BGPNodeConfig{}, &handler.EnqueueRequestForObject{}, builder.WithPredicates(nodeConfigWritten)).
		Watches(&kbgpv1.BGPClusterConfig{}, handler.EnqueueRequestsFromMapFunc(nodesOfClusterConfig(r.Client)), builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Watches(&kbgpv1.BGPNodeConfigOverride{}, overrideNodes, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Complete(metrics.Instrument(r))
}

// overrideNodeRefIndex indexes BGPNodeConfigOverrides by spec.nodeRef.
const overrideNodeRefIndex = "spec.nodeRef"

func indexOverrideNodeRef(obj client.Object) []string {
	return []string{obj.(*kbgpv1.BGPNodeConfigOverride).Spec.NodeRef}
}

// nodeMembershipChanged passes node creations, deletions, label and InternalIP
// changes: the only node events that can change which cluster config a node runs or
// its mesh peers. Heartbeat and other status updates are dropped before they reach a
// workqueue.
var nodeMembershipChanged = predicate.Or(predicate.LabelChangedPredicate{}, predicate.Funcs{
	UpdateFunc: func(e event.UpdateEvent) bool {
		if e.ObjectOld.GetUID() != e.ObjectNew.GetUID() {
			return true
		}
		o, okOld := e.ObjectOld.(*corev1.Node)
		n, okNew := e.ObjectNew.(*corev1.Node)
		return okOld && okNew && !sameInternalIPs(o, n)
	},
})

// meshNeighbours maps a node event to the other nodes of the meshes the node is (or
// was: the map runs on the old and the new object) in, the nodes a meshed cluster
// config that selects it selects too. Their mesh peers gain, lose or readdress this
// node; nodes of other cluster configs are not touched.
func meshNeighbours(c client.Reader) handler.MapFunc {
	return func(ctx context.Context, obj client.Object) []reconcile.Request {
		var configs kbgpv1.BGPClusterConfigList
		if err := c.List(ctx, &configs); err != nil {
			log.FromContext(ctx).Error(err, "list cluster configs for a node's mesh", "node", obj.GetName())
			return nil
		}
		var meshed []kbgpv1.BGPClusterConfig
		for _, cc := range configs.Items {
			if hasMesh(&cc) {
				meshed = append(meshed, cc)
			}
		}
		if len(meshed) == 0 {
			return nil
		}
		nodes, err := listNodes(ctx, c)
		if err != nil {
			log.FromContext(ctx).Error(err, "list nodes for a node's mesh", "node", obj.GetName())
			return nil
		}
		selectors, _ := render.ParseSelectors(meshed)
		keys := map[string]bool{}
		for _, s := range selectors {
			if !s.Selects(obj.GetLabels()) {
				continue
			}
			for _, n := range nodes {
				if n.Name != obj.GetName() && s.Selects(n.Labels) {
					keys[n.Name] = true
				}
			}
		}
		return requestsFor(keys)
	}
}

// nodeConfigWritten passes node config changes the operator must correct: spec,
// labels, owner references, deletion. The agent's status writes are dropped.
var nodeConfigWritten = predicate.Funcs{
	UpdateFunc: func(e event.UpdateEvent) bool {
		o, n := e.ObjectOld, e.ObjectNew
		return o.GetGeneration() != n.GetGeneration() ||
			!reflect.DeepEqual(o.GetLabels(), n.GetLabels()) ||
			!reflect.DeepEqual(o.GetOwnerReferences(), n.GetOwnerReferences())
	},
}

// nodesOfClusterConfig maps a cluster config event to the nodes it can affect: those
// its selector matches now and those whose node config it rendered before. That is
// O(nodes) in the cache for one config event, and only the affected nodes are
// re-rendered.
func nodesOfClusterConfig(c client.Reader) handler.MapFunc {
	return func(ctx context.Context, obj client.Object) []reconcile.Request {
		cc := obj.(*kbgpv1.BGPClusterConfig)
		keys := map[string]bool{}
		var rendered kbgpv1.BGPNodeConfigList
		if err := c.List(ctx, &rendered, client.MatchingLabels{kbgpv1.ClusterConfigLabel: cc.Name}); err != nil {
			log.FromContext(ctx).Error(err, "list node configs of cluster config", "clusterConfig", cc.Name)
		}
		for _, nc := range rendered.Items {
			keys[nc.Name] = true
		}
		selectors, _ := render.ParseSelectors([]kbgpv1.BGPClusterConfig{*cc})
		nodes, err := listNodes(ctx, c)
		if err != nil {
			log.FromContext(ctx).Error(err, "list nodes for cluster config", "clusterConfig", cc.Name)
		}
		for _, n := range nodes {
			if selectors[0].Selects(n.Labels) {
				keys[n.Name] = true
			}
		}
		return requestsFor(keys)
	}
}

// overrideNodes enqueues the node an override targets, and on an update that moves
// it, the node it targeted before.
var overrideNodes = handler.Funcs{
	CreateFunc: func(_ context.Context, e event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
		q.Add(nodeRequest(e.Object))
	},
	UpdateFunc: func(_ context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
		q.Add(nodeRequest(e.ObjectOld))
		q.Add(nodeRequest(e.ObjectNew))
	},
	DeleteFunc: func(_ context.Context, e event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
		q.Add(nodeRequest(e.Object))
	},
	GenericFunc: func(_ context.Context, e event.GenericEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
		q.Add(nodeRequest(e.Object))
	},
}

func nodeRequest(obj client.Object) reconcile.Request {
	return reconcile.Request{NamespacedName: types.NamespacedName{Name: obj.(*kbgpv1.BGPNodeConfigOverride).Spec.NodeRef}}
}
