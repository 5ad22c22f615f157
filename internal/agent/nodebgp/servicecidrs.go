package nodebgp

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	toolscache "k8s.io/client-go/tools/cache"
)

// serviceCIDRWatch follows the cluster's ServiceCIDRs (networking.k8s.io/v1, served
// from Kubernetes 1.33 on): their ranges are reserved (intent.Reserved), so that a free
// address of the Service CIDR is never announced as a Service's external or
// load-balancer IP. An API server that does not serve them is logged once and nothing
// is watched: only the cluster IPs already allocated are then kept from other Services
// (by the claims on them). It runs beside the manager's cache, not in it, so that a
// missing API never holds up the controller's start; the first full build waits for
// its first list instead (listed), for a while.
type serviceCIDRWatch struct {
	discovery discovery.DiscoveryInterface
	clientset kubernetes.Interface
	logger    *slog.Logger
	// changed is called after any change of the ServiceCIDRs, and once when the first
	// list is complete.
	changed func()
	store   atomic.Pointer[toolscache.Store]
	// known is closed once all says what the API server holds: the first list is
	// complete, or ServiceCIDRs are not served (or the watch stopped first).
	known     chan struct{}
	knownOnce sync.Once
}

func newServiceCIDRWatch(d discovery.DiscoveryInterface, c kubernetes.Interface, logger *slog.Logger, changed func()) *serviceCIDRWatch {
	return &serviceCIDRWatch{discovery: d, clientset: c, logger: logger, changed: changed, known: make(chan struct{})}
}

// isKnown closes known, once.
func (w *serviceCIDRWatch) isKnown() { w.knownOnce.Do(func() { close(w.known) }) }

// listed waits until all says what the API server holds, at most within, and reports
// whether it does. A full build that read the reservations before the first list
// would announce a free address of the Service CIDR and withdraw it a moment later.
func (w *serviceCIDRWatch) listed(ctx context.Context, within time.Duration) bool {
	timer := time.NewTimer(within)
	defer timer.Stop()
	select {
	case <-w.known:
		return true
	case <-ctx.Done():
	case <-timer.C:
	}
	return false
}

// served asks the API server whether it serves ServiceCIDRs, until it answers.
func (w *serviceCIDRWatch) served(ctx context.Context) (bool, error) {
	const maxWait = time.Minute
	for wait := time.Second; ; wait = min(2*wait, maxWait) {
		list, err := w.discovery.ServerResourcesForGroupVersion(networkingv1.SchemeGroupVersion.String())
		switch {
		case err == nil:
			return slices.ContainsFunc(list.APIResources, func(r metav1.APIResource) bool { return r.Name == "servicecidrs" }), nil
		case apierrors.IsNotFound(err):
			return false, nil
		}
		w.logger.Debug("asking whether ServiceCIDRs are served", "error", err, "retryIn", wait.String())
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-time.After(wait):
		}
	}
}

// Start watches until ctx ends (a manager Runnable).
func (w *serviceCIDRWatch) Start(ctx context.Context) error {
	defer w.isKnown() // whatever ends the watch, nobody waits for it any more
	served, err := w.served(ctx)
	if err != nil {
		return nil // stopped before the API server answered
	}
	if !served {
		w.logger.Info("the API server serves no networking.k8s.io/v1 ServiceCIDRs (Kubernetes older than 1.33): free addresses of the Service CIDR are not reserved, allocated cluster IPs still are")
		return nil
	}
	factory := informers.NewSharedInformerFactoryWithOptions(w.clientset, 0, informers.WithTransform(keepCIDRs))
	informer := factory.Networking().V1().ServiceCIDRs().Informer()
	if _, err := informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc: func(any) { w.changed() },
		UpdateFunc: func(o, n any) {
			on, okO := o.(*networkingv1.ServiceCIDR)
			nn, okN := n.(*networkingv1.ServiceCIDR)
			if !okO || !okN || !slices.Equal(on.Spec.CIDRs, nn.Spec.CIDRs) {
				w.changed()
			}
		},
		DeleteFunc: func(any) { w.changed() },
	}); err != nil {
		return err
	}
	store := informer.GetStore()
	w.store.Store(&store)
	factory.Start(ctx.Done())
	defer factory.Shutdown()
	if toolscache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		w.isKnown()
		w.changed() // the complete list is known, even when it is empty
	}
	<-ctx.Done()
	return nil
}

// all are the ServiceCIDRs' ranges by name, as far as the watch knows them (none
// before its first list).
func (w *serviceCIDRWatch) all() map[string][]string {
	store := w.store.Load()
	if store == nil {
		return nil
	}
	out := map[string][]string{}
	for _, obj := range (*store).List() {
		if s, ok := obj.(*networkingv1.ServiceCIDR); ok {
			out[s.Name] = s.Spec.CIDRs
		}
	}
	return out
}

// keepCIDRs strips a ServiceCIDR to its name and ranges before the informer stores it.
func keepCIDRs(obj any) (any, error) {
	s, ok := obj.(*networkingv1.ServiceCIDR)
	if !ok {
		return obj, nil
	}
	return &networkingv1.ServiceCIDR{
		ObjectMeta: metav1.ObjectMeta{Name: s.Name, ResourceVersion: s.ResourceVersion},
		Spec:       networkingv1.ServiceCIDRSpec{CIDRs: s.Spec.CIDRs},
	}, nil
}
