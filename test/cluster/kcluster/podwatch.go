package kcluster

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	toolswatch "k8s.io/client-go/tools/watch"
)

// PodTimeline records, as a watch sees them, when pods of one selector become ready,
// stop being ready and are deleted. A pod's Ready condition keeps only its last
// transition, so a short blip hides when the pod first became ready; the timeline
// keeps them all.
type PodTimeline struct {
	cancel context.CancelFunc
	done   chan struct{}

	mu     sync.Mutex
	events []PodEvent
	ready  map[string]bool
	err    error
}

// PodEvent is one change of a pod's readiness or life.
type PodEvent struct {
	At    time.Time
	Pod   string
	Node  string
	Image string
	What  string // created, ready, not-ready, deleting, deleted
}

func (e PodEvent) String() string {
	return fmt.Sprintf("%s %-9s %s on %s (%s)", e.At.Format("15:04:05.000"), e.What, e.Pod, e.Node, e.Image)
}

// WatchPods starts a timeline of the pods in namespace matching selector. The pods
// that exist already are recorded as they are (created, and ready if they are).
func (c *Cluster) WatchPods(namespace, selector string) (*PodTimeline, error) {
	pods := c.Kube.CoreV1().Pods(namespace)
	ctx, cancel := context.WithCancel(context.Background())
	list, err := pods.List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		cancel()
		return nil, err
	}
	tl := &PodTimeline{cancel: cancel, done: make(chan struct{}), ready: map[string]bool{}}
	for i := range list.Items {
		tl.observe(watch.Added, &list.Items[i])
	}
	// A retrying watcher: this etcd answers a watch that starts right after a write
	// with "Too large resource version" (504) until its watch cache has caught up.
	w, err := toolswatch.NewRetryWatcherWithContext(ctx, list.ResourceVersion, &cache.ListWatch{
		WatchFunc: func(o metav1.ListOptions) (watch.Interface, error) {
			o.LabelSelector = selector
			return pods.Watch(ctx, o)
		},
	})
	if err != nil {
		cancel()
		return nil, err
	}
	go tl.run(w)
	return tl, nil
}

func (tl *PodTimeline) run(w watch.Interface) {
	defer close(tl.done)
	defer w.Stop()
	for ev := range w.ResultChan() {
		switch ev.Type {
		case watch.Error:
			tl.mu.Lock()
			tl.err = fmt.Errorf("pod watch: %v", ev.Object)
			tl.mu.Unlock()
			return
		case watch.Added, watch.Modified, watch.Deleted:
			if p, ok := ev.Object.(*corev1.Pod); ok {
				tl.observe(ev.Type, p)
			}
		}
	}
}

func (tl *PodTimeline) observe(t watch.EventType, p *corev1.Pod) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	image := ""
	if len(p.Spec.Containers) > 0 {
		image = p.Spec.Containers[0].Image
	}
	add := func(what string) {
		tl.events = append(tl.events, PodEvent{At: time.Now(), Pod: p.Name, Node: p.Spec.NodeName, Image: image, What: what})
	}
	was, seen := tl.ready[p.Name]
	if !seen {
		add("created")
	}
	switch {
	case t == watch.Deleted:
		add("deleted")
		delete(tl.ready, p.Name)
		return
	case p.DeletionTimestamp != nil && !tl.deleting(p.Name):
		add("deleting")
	}
	now := podReady(p)
	if now != was || !seen {
		if now {
			add("ready")
		} else if seen {
			add("not-ready")
		}
	}
	tl.ready[p.Name] = now
}

func (tl *PodTimeline) deleting(pod string) bool {
	for _, e := range tl.events {
		if e.Pod == pod && e.What == "deleting" {
			return true
		}
	}
	return false
}

// Stop ends the watch and returns the events in the order seen, or the watch's error.
func (tl *PodTimeline) Stop() ([]PodEvent, error) {
	tl.cancel()
	<-tl.done
	tl.mu.Lock()
	defer tl.mu.Unlock()
	return tl.events, tl.err
}

// FormatEvents writes events one per line, for a test log.
func FormatEvents(events []PodEvent) string {
	var b strings.Builder
	for _, e := range events {
		b.WriteString(e.String())
		b.WriteByte('\n')
	}
	return b.String()
}
