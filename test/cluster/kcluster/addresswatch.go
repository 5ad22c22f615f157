package kcluster

import (
	"context"
	"fmt"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	toolswatch "k8s.io/client-go/tools/watch"
)

// AddressWatch follows the LoadBalancer addresses of one namespace's Services through
// every state the API server shows, and records each moment an address is held by
// two Services at once. A check of the end state alone misses an address given twice
// and taken back later.
type AddressWatch struct {
	cancel context.CancelFunc
	done   chan struct{}

	mu      sync.Mutex
	held    map[string][]string // Service -> its addresses now
	doubles []string
	err     error
}

// WatchAddresses starts following the Services of namespace.
func (c *Cluster) WatchAddresses(namespace string) (*AddressWatch, error) {
	svcs := c.Kube.CoreV1().Services(namespace)
	ctx, cancel := context.WithCancel(context.Background())
	list, err := svcs.List(ctx, metav1.ListOptions{})
	if err != nil {
		cancel()
		return nil, err
	}
	aw := &AddressWatch{cancel: cancel, done: make(chan struct{}), held: map[string][]string{}}
	for i := range list.Items {
		aw.observe(watch.Added, &list.Items[i])
	}
	w, err := toolswatch.NewRetryWatcherWithContext(ctx, list.ResourceVersion, &cache.ListWatch{
		WatchFunc: func(o metav1.ListOptions) (watch.Interface, error) { return svcs.Watch(ctx, o) },
	})
	if err != nil {
		cancel()
		return nil, err
	}
	go func() {
		defer close(aw.done)
		defer w.Stop()
		for ev := range w.ResultChan() {
			if ev.Type == watch.Error {
				aw.mu.Lock()
				aw.err = fmt.Errorf("service watch: %v", ev.Object)
				aw.mu.Unlock()
				return
			}
			if s, ok := ev.Object.(*corev1.Service); ok {
				aw.observe(ev.Type, s)
			}
		}
	}()
	return aw, nil
}

func (aw *AddressWatch) observe(t watch.EventType, s *corev1.Service) {
	aw.mu.Lock()
	defer aw.mu.Unlock()
	if t == watch.Deleted {
		delete(aw.held, s.Name)
		return
	}
	var ips []string
	for _, ing := range s.Status.LoadBalancer.Ingress {
		ips = append(ips, ing.IP)
	}
	aw.held[s.Name] = ips
	for other, theirs := range aw.held {
		if other == s.Name {
			continue
		}
		for _, ip := range ips {
			if slices.Contains(theirs, ip) {
				aw.doubles = append(aw.doubles, fmt.Sprintf("%s held by %s and %s (resourceVersion %s)", ip, other, s.Name, s.ResourceVersion))
			}
		}
	}
}

// Stop ends the watch and returns every address seen held twice, or the watch's error.
func (aw *AddressWatch) Stop() ([]string, error) {
	aw.cancel()
	<-aw.done
	aw.mu.Lock()
	defer aw.mu.Unlock()
	return aw.doubles, aw.err
}
