package agent

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// lastAppliedAnnotation is where `kubectl apply` keeps a copy of the whole object
// it applied: for a Service with many addresses, a second copy of all of them.
const lastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// The transforms keep the agent's informer caches to what it reads: no object keeps
// its managedFields (the agent never applies server-side from a cached object), and
// Services, the cache that grows with the routes, drop kubectl's last-applied copy.
// The agent never writes a Service, so nothing stripped is ever written back.
var stripManagedFields = cache.TransformStripManagedFields()

// stripService is the Services' transform.
func stripService(obj any) (any, error) {
	obj, err := stripManagedFields(obj)
	if svc, ok := obj.(*corev1.Service); ok && err == nil {
		delete(svc.Annotations, lastAppliedAnnotation)
	}
	return obj, err
}

// cacheOptions are the agent's cache options: only its own node's BGPNodeConfig and
// Node (own selects it by name), and the transforms above. Secrets are not cached:
// the secret watch reads the ones peer configs name.
func cacheOptions(own fields.Selector) cache.Options {
	return cache.Options{
		DefaultTransform: stripManagedFields,
		ByObject: map[client.Object]cache.ByObject{
			&kbgpv1.BGPNodeConfig{}: {Field: own},
			&corev1.Node{}:          {Field: own},
			&corev1.Service{}:       {Transform: stripService},
		},
	}
}
