package controller

import (
	"context"
	"net/netip"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"kbgp.io/kbgp/internal/podnet"
	"kbgp.io/kbgp/internal/podnet/routes"
)

// clusterPodCIDRs follows every Node's pod CIDRs: a received route is installed only
// if it is exactly one of them, and never one of this node's. It costs a watch of all
// Nodes per agent; the informer keeps nothing of a Node but its name and pod CIDRs, and
// only a change of those recomputes the set. Until the first complete list nothing is
// installed (the node's own pod CIDRs are not known before it).
type clusterPodCIDRs struct {
	clientset kubernetes.Interface
	nodeName  string
	routes    *routes.Installer
}

// Start runs the watch until ctx ends (a manager Runnable).
func (c *clusterPodCIDRs) Start(ctx context.Context) error {
	factory := informers.NewSharedInformerFactoryWithOptions(c.clientset, 0, informers.WithTransform(keepPodCIDRs))
	nodes := factory.Core().V1().Nodes()
	informer := nodes.Informer()
	recompute := func() {
		var all, own []netip.Prefix
		for _, obj := range informer.GetStore().List() {
			n := obj.(*corev1.Node)
			cidrs, err := podnet.PodCIDRs(n.Spec.PodCIDRs, n.Spec.PodCIDR)
			if err != nil {
				continue
			}
			all = append(all, cidrs...)
			if n.Name == c.nodeName {
				own = cidrs
			}
		}
		slices.SortFunc(all, netip.Prefix.Compare)
		c.routes.SetNodes(slices.Compact(all), own)
	}
	// Events only mark the set stale; one loop recomputes it, so the initial list of N
	// Nodes, or a burst of changes, costs one pass over the Nodes, not one per event.
	stale := make(chan struct{}, 1)
	mark := func() {
		select {
		case stale <- struct{}{}:
		default:
		}
	}
	_, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(any) { mark() },
		UpdateFunc: func(o, n any) {
			on, nn := o.(*corev1.Node), n.(*corev1.Node)
			if !slices.Equal(on.Spec.PodCIDRs, nn.Spec.PodCIDRs) || on.Spec.PodCIDR != nn.Spec.PodCIDR {
				mark()
			}
		},
		DeleteFunc: func(any) { mark() },
	})
	if err != nil {
		return err
	}
	factory.Start(ctx.Done())
	defer factory.Shutdown()
	factory.WaitForCacheSync(ctx.Done())
	mark() // the complete list is known even when it is empty
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-stale:
			recompute()
		}
	}
}

// keepPodCIDRs strips a Node to its name and pod CIDRs before the informer stores it.
func keepPodCIDRs(obj any) (any, error) {
	n, ok := obj.(*corev1.Node)
	if !ok {
		return obj, nil
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: n.Name, ResourceVersion: n.ResourceVersion},
		Spec:       corev1.NodeSpec{PodCIDR: n.Spec.PodCIDR, PodCIDRs: n.Spec.PodCIDRs},
	}, nil
}
