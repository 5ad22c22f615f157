package operator

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/metrics"
	"kbgp.io/kbgp/internal/render"
)

// ClusterConfigReconciler keeps the conditions of one BGPClusterConfig true to what the
// operator sees: selected nodes, conflicts with older configs, missing peer configs and
// router IDs that two of its nodes resolved to the same value.
// Invalid cross-object input becomes a condition and a successful reconcile, never an
// error that the workqueue would retry hot.
type ClusterConfigReconciler struct {
	Client client.Client
	// Recorder emits RouterIDConflict events on the node configs involved.
	Recorder record.EventRecorder
}

// Reconcile recomputes the conditions of one cluster config and writes them only when
// they differ.
func (r *ClusterConfigReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var cc kbgpv1.BGPClusterConfig
	if err := r.Client.Get(ctx, req.NamespacedName, &cc); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	facts, err := r.observe(ctx, &cc)
	if err != nil {
		return reconcile.Result{}, err
	}
	conds := render.ClusterConfigConditions(cc.Status.Conditions, cc.Generation, facts, metav1.Now())
	if equality.Semantic.DeepEqual(conds, cc.Status.Conditions) {
		return reconcile.Result{}, nil
	}
	updated := cc.DeepCopy()
	updated.Status.Conditions = conds
	if err := r.Client.Status().Update(ctx, updated, client.FieldOwner(FieldManager)); err != nil {
		return reconcile.Result{}, fmt.Errorf("update status of BGPClusterConfig %s: %w", cc.Name, err)
	}
	r.recordRouterIDConflicts(facts.RouterIDConflicts)
	r.recordHighPoolUsage(ctx, updated, facts.HighPoolUsage)
	return reconcile.Result{}, nil
}

// recordRouterIDConflicts puts a Warning event on every node config involved in a
// conflict. It runs only when the conditions changed, so a standing conflict is
// reported once per change, not on every resync.
func (r *ClusterConfigReconciler) recordRouterIDConflicts(conflicts []render.RouterIDConflict) {
	for _, c := range conflicts {
		for _, node := range c.Nodes {
			nc := &kbgpv1.BGPNodeConfig{ObjectMeta: metav1.ObjectMeta{Name: node}}
			r.Recorder.Event(nc, corev1.EventTypeWarning, kbgpv1.ConditionRouterIDConflict, c.String())
		}
	}
}

// recordHighPoolUsage logs a warning and puts a Warning event on the cluster config for
// every pool more than half used; like the conflicts, only when the conditions changed.
func (r *ClusterConfigReconciler) recordHighPoolUsage(ctx context.Context, cc *kbgpv1.BGPClusterConfig, usages []render.PoolUsage) {
	for _, u := range usages {
		log.FromContext(ctx).Info("router-ID pool more than half used", "clusterConfig", cc.Name, "detail", u.String())
		r.Recorder.Event(cc, corev1.EventTypeWarning, kbgpv1.ConditionRouterIDPoolUsageHigh, u.String())
	}
}

// observe gathers the facts the conditions are computed from, all from the cache.
func (r *ClusterConfigReconciler) observe(ctx context.Context, cc *kbgpv1.BGPClusterConfig) (render.ClusterConfigFacts, error) {
	var facts render.ClusterConfigFacts
	var configs kbgpv1.BGPClusterConfigList
	if err := r.Client.List(ctx, &configs); err != nil {
		return facts, fmt.Errorf("list cluster configs: %w", err)
	}
	nodes, err := listNodes(ctx, r.Client)
	if err != nil {
		return facts, err
	}
	selectors, _ := render.ParseSelectors(configs.Items)
	for _, node := range nodes {
		a := render.AssignNode(selectors, node.Labels)
		if a.Winner == nil {
			continue
		}
		if a.Winner.Name == cc.Name {
			facts.SelectedNodes++
			notePoliciesOverridden(&facts, node.Name, a.Losers)
			continue
		}
		for _, loser := range a.Losers {
			if loser.Name == cc.Name {
				facts.SelectedNodes++
				if facts.ConflictNodes == nil {
					facts.ConflictNodes = map[string]string{}
				}
				facts.ConflictNodes[node.Name] = a.Winner.Name
			}
		}
	}

	peerConfigs := &metav1.PartialObjectMetadataList{}
	peerConfigs.SetGroupVersionKind(kbgpv1.GroupVersion.WithKind("BGPPeerConfigList"))
	if err := r.Client.List(ctx, peerConfigs); err != nil {
		return facts, fmt.Errorf("list peer configs: %w", err)
	}
	existing := make(map[string]bool, len(peerConfigs.Items))
	for _, pc := range peerConfigs.Items {
		existing[pc.Name] = true
	}
	facts.MissingPeerConfigs = render.MissingPeerConfigs(cc, existing)

	var rendered kbgpv1.BGPNodeConfigList
	if err := r.Client.List(ctx, &rendered, client.MatchingLabels{kbgpv1.ClusterConfigLabel: cc.Name}); err != nil {
		return facts, fmt.Errorf("list node configs of %s: %w", cc.Name, err)
	}
	facts.RouterIDConflicts = render.RouterIDConflicts(rendered.Items)
	facts.HighPoolUsage = render.HighPoolUsage(cc, rendered.Items)
	return facts, nil
}

// notePoliciesOverridden records the peering policies whose generated configs lose to
// the winner on node.
func notePoliciesOverridden(facts *render.ClusterConfigFacts, node string, losers []*kbgpv1.BGPClusterConfig) {
	for _, l := range losers {
		if !render.GeneratedByPolicy(l) {
			continue
		}
		if facts.OverriddenPolicies == nil {
			facts.OverriddenPolicies = map[string]string{}
		}
		facts.OverriddenPolicies[node] = l.Labels[kbgpv1.PeeringPolicyLabel]
	}
}

// SetupWithManager registers the cluster config controller. Every event recomputes
// every cluster config: conflicts and node counts depend on all of them together, and
// there are few.
func (r *ClusterConfigReconciler) SetupWithManager(mgr ctrl.Manager) error {
	all := handler.EnqueueRequestsFromMapFunc(allClusterConfigs(r.Client))
	return ctrl.NewControllerManagedBy(mgr).
		Named("clusterconfig").
		Watches(&kbgpv1.BGPClusterConfig{}, all, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Watches(&corev1.Node{}, all, builder.WithPredicates(nodeMembershipChanged)).
		Watches(&kbgpv1.BGPNodeConfig{}, handler.EnqueueRequestsFromMapFunc(clusterConfigOfNodeConfig), builder.WithPredicates(resolvedRouterIDsChanged)).
		// A peer config's existence matters (MissingPeerConfigs), not its content.
		WatchesMetadata(&kbgpv1.BGPPeerConfig{}, all, builder.WithPredicates(predicate.Funcs{
			UpdateFunc: func(event.UpdateEvent) bool { return false },
		})).
		Complete(metrics.Instrument(r))
}

// allClusterConfigs maps any event to every cluster config: conflicts and node counts
// depend on all of them together, and there are few.
func allClusterConfigs(c client.Reader) handler.MapFunc {
	return func(ctx context.Context, _ client.Object) []reconcile.Request {
		var list kbgpv1.BGPClusterConfigList
		if err := c.List(ctx, &list); err != nil {
			log.FromContext(ctx).Error(err, "list cluster configs")
			return nil
		}
		keys := make(map[string]bool, len(list.Items))
		for _, cc := range list.Items {
			keys[cc.Name] = true
		}
		return requestsFor(keys)
	}
}

// resolvedRouterIDsChanged passes node config events that can change a router-ID
// conflict: creation, deletion, and status updates that change a resolved router ID.
var resolvedRouterIDsChanged = predicate.Funcs{
	UpdateFunc: func(e event.UpdateEvent) bool {
		return !slices.Equal(resolvedRouterIDs(e.ObjectOld), resolvedRouterIDs(e.ObjectNew))
	},
}

func resolvedRouterIDs(obj client.Object) []string {
	nc := obj.(*kbgpv1.BGPNodeConfig)
	ids := make([]string, 0, len(nc.Status.BGPInstances))
	for _, inst := range nc.Status.BGPInstances {
		ids = append(ids, fmt.Sprintf("%d=%s", inst.LocalASN, inst.RouterID))
	}
	return ids
}

// clusterConfigOfNodeConfig maps a node config to the cluster config it came from.
func clusterConfigOfNodeConfig(_ context.Context, obj client.Object) []reconcile.Request {
	name := obj.GetLabels()[kbgpv1.ClusterConfigLabel]
	if name == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: name}}}
}
