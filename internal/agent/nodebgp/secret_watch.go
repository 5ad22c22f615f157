package nodebgp

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
	toolscache "k8s.io/client-go/tools/cache"
)

// secretWatch keeps one informer per Secret that the node's peer configs name, each
// listing and watching that one name (a field selector on metadata.name), so the agent
// holds the TCP MD5 Secrets it uses and never reads the rest of its namespace. The API
// has no "name in (a, b)" selector, hence one informer per name; a node uses a handful.
type secretWatch struct {
	client    kubernetes.Interface
	namespace string
	// changed is called, without blocking, when a watched Secret is added, changed or
	// deleted.
	changed func()

	mu      sync.Mutex
	watches map[string]*nameWatch
}

// nameWatch is the informer of one Secret name.
type nameWatch struct {
	informer toolscache.SharedIndexInformer
	stop     context.CancelFunc
}

func newSecretWatch(c kubernetes.Interface, namespace string, changed func()) *secretWatch {
	return &secretWatch{client: c, namespace: namespace, changed: changed, watches: map[string]*nameWatch{}}
}

// Secret returns the Secret name, nil when it does not exist. The first read of a name
// starts its informer and waits until it has listed (or ctx ends); later reads are
// served from it, and a change of the Secret calls changed.
func (w *secretWatch) Secret(ctx context.Context, name string) (*corev1.Secret, error) {
	w.mu.Lock()
	nw, ok := w.watches[name]
	if !ok {
		nw = w.start(name)
		w.watches[name] = nw
	}
	w.mu.Unlock()
	if !toolscache.WaitForCacheSync(ctx.Done(), nw.informer.HasSynced) {
		return nil, fmt.Errorf("list Secret %s/%s: %w", w.namespace, name, ctx.Err())
	}
	obj, exists, err := nw.informer.GetStore().GetByKey(w.namespace + "/" + name)
	if err != nil || !exists {
		return nil, err
	}
	return obj.(*corev1.Secret), nil
}

// Keep stops the informers of every name but names: the Secrets no peer config uses
// any more are no longer read.
func (w *secretWatch) Keep(names []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for name, nw := range w.watches {
		if !slices.Contains(names, name) {
			nw.stop()
			delete(w.watches, name)
		}
	}
}

// Watched lists the names being watched, sorted.
func (w *secretWatch) Watched() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Sorted(maps.Keys(w.watches))
}

// Stop stops every informer.
func (w *secretWatch) Stop() { w.Keep(nil) }

func (w *secretWatch) start(name string) *nameWatch {
	selector := fields.OneTermEqualSelector("metadata.name", name).String()
	lw := toolscache.NewFilteredListWatchFromClient(w.client.CoreV1().RESTClient(), "secrets", w.namespace,
		func(o *metav1.ListOptions) { o.FieldSelector = selector })
	informer := toolscache.NewSharedIndexInformer(lw, &corev1.Secret{}, 0, toolscache.Indexers{})
	changed := func(any) { w.changed() }
	_, _ = informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    changed,
		UpdateFunc: func(any, any) { w.changed() },
		DeleteFunc: changed,
	})
	ctx, cancel := context.WithCancel(context.Background())
	go informer.RunWithContext(ctx)
	return &nameWatch{informer: informer, stop: cancel}
}
