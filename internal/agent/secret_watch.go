package agent

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

// Want makes the watched names exactly names: informers start for new names (and are
// waited for until they have listed, or ctx ends) and stop for names no peer config
// uses any more.
func (w *secretWatch) Want(ctx context.Context, names []string) error {
	w.mu.Lock()
	want := map[string]bool{}
	var started []*nameWatch
	for _, name := range names {
		want[name] = true
		if _, ok := w.watches[name]; !ok {
			nw := w.start(name)
			w.watches[name] = nw
			started = append(started, nw)
		}
	}
	for name, nw := range w.watches {
		if !want[name] {
			nw.stop()
			delete(w.watches, name)
		}
	}
	w.mu.Unlock()
	for _, nw := range started {
		if !toolscache.WaitForCacheSync(ctx.Done(), nw.informer.HasSynced) {
			return fmt.Errorf("list Secrets in %s: %w", w.namespace, ctx.Err())
		}
	}
	return nil
}

// Get returns the watched Secret name; ok is false when it does not exist or is not
// watched. The Secret is the informer's own: callers must not modify it.
func (w *secretWatch) Get(name string) (s *corev1.Secret, ok bool) {
	w.mu.Lock()
	nw, watched := w.watches[name]
	w.mu.Unlock()
	if !watched {
		return nil, false
	}
	obj, exists, err := nw.informer.GetStore().GetByKey(w.namespace + "/" + name)
	if err != nil || !exists {
		return nil, false
	}
	return obj.(*corev1.Secret), true
}

// Watched lists the names being watched, sorted.
func (w *secretWatch) Watched() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Sorted(maps.Keys(w.watches))
}

// Stop stops every informer.
func (w *secretWatch) Stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for name, nw := range w.watches {
		nw.stop()
		delete(w.watches, name)
	}
}

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
