package operator

import (
	"context"
	"fmt"
	"reflect"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/render"
)

// overrideNodeRefIndex indexes BGPNodeConfigOverrides by spec.nodeRef.
const overrideNodeRefIndex = "spec.nodeRef"

func indexOverrideNodeRef(obj client.Object) []string {
	return []string{obj.(*kbgpv1.BGPNodeConfigOverride).Spec.NodeRef}
}

// nodeMembershipChanged passes node creations, deletions and label changes: the only
// node events that can change which cluster config a node runs. Heartbeat and status
// updates are dropped before they reach a workqueue.
var nodeMembershipChanged = predicate.Or(predicate.LabelChangedPredicate{}, predicate.Funcs{
	UpdateFunc: func(e event.UpdateEvent) bool { return e.ObjectOld.GetUID() != e.ObjectNew.GetUID() },
})

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
		nodes, err := listNodeMetadata(ctx, c)
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

func requestsFor(keys map[string]bool) []reconcile.Request {
	out := make([]reconcile.Request, 0, len(keys))
	for k := range keys {
		out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Name: k}})
	}
	return out
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

// loadBalancerService passes events of Services that are, or were before the update, of
// type LoadBalancer: the others never hold a pool address.
var loadBalancerService = predicate.Funcs{
	CreateFunc:  func(e event.CreateEvent) bool { return isLoadBalancer(e.Object) },
	DeleteFunc:  func(e event.DeleteEvent) bool { return isLoadBalancer(e.Object) },
	UpdateFunc:  func(e event.UpdateEvent) bool { return isLoadBalancer(e.ObjectOld) || isLoadBalancer(e.ObjectNew) },
	GenericFunc: func(e event.GenericEvent) bool { return isLoadBalancer(e.Object) },
}

func isLoadBalancer(o client.Object) bool {
	svc, ok := o.(*corev1.Service)
	return ok && svc.Spec.Type == corev1.ServiceTypeLoadBalancer
}

// loadBalancerServices maps a pool event to every LoadBalancer Service: a new, changed
// or deleted pool can give, move or take any of their addresses. Pool events are rare.
func loadBalancerServices(c client.Reader) handler.MapFunc {
	return func(ctx context.Context, _ client.Object) []reconcile.Request {
		var list corev1.ServiceList
		if err := c.List(ctx, &list, client.UnsafeDisableDeepCopy); err != nil {
			log.FromContext(ctx).Error(err, "list Services for a pool change")
			return nil
		}
		var out []reconcile.Request
		for i := range list.Items {
			if list.Items[i].Spec.Type == corev1.ServiceTypeLoadBalancer {
				out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&list.Items[i])})
			}
		}
		return out
	}
}
