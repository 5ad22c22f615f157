package agent

import (
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// The transforms keep the agent's informer caches to what it reads: no object keeps
// its managedFields (the agent never applies server-side from a cached object), and
// Services and EndpointSlices — the caches that grow with the cluster, whoever creates
// the objects — keep only the fields intent reads (internal/intent/service.go). The
// agent never writes either, so nothing stripped is ever written back; a field intent
// starts reading must be added here, which TestStripKeepsWhatIntentReads checks.
var stripManagedFields = cache.TransformStripManagedFields()

// cachedMeta is the metadata a cached Service or EndpointSlice keeps: identity, the
// resource version the informer compares, the creation time that orders claims on an
// address, and the labels Service selectors match (annotations, owner references,
// finalizers and managedFields go).
func cachedMeta(m *metav1.ObjectMeta) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: m.Name, Namespace: m.Namespace, UID: m.UID, ResourceVersion: m.ResourceVersion,
		Generation: m.Generation, CreationTimestamp: m.CreationTimestamp, DeletionTimestamp: m.DeletionTimestamp, Labels: m.Labels}
}

// stripService is the Services' transform: the addresses of every kind, what decides
// which are announced (type, class, traffic policies) and the labels; ports, selector,
// annotations (kubectl's last-applied copy of the whole object among them) and the
// status's ports go.
func stripService(obj any) (any, error) {
	svc, ok := obj.(*corev1.Service)
	if !ok {
		return stripManagedFields(obj)
	}
	out := &corev1.Service{TypeMeta: svc.TypeMeta, ObjectMeta: cachedMeta(&svc.ObjectMeta), Spec: corev1.ServiceSpec{
		Type: svc.Spec.Type, ClusterIP: svc.Spec.ClusterIP, ClusterIPs: svc.Spec.ClusterIPs, ExternalIPs: svc.Spec.ExternalIPs,
		LoadBalancerClass: svc.Spec.LoadBalancerClass, ExternalTrafficPolicy: svc.Spec.ExternalTrafficPolicy,
		InternalTrafficPolicy: svc.Spec.InternalTrafficPolicy,
	}}
	for _, ing := range svc.Status.LoadBalancer.Ingress {
		out.Status.LoadBalancer.Ingress = append(out.Status.LoadBalancer.Ingress, corev1.LoadBalancerIngress{IP: ing.IP})
	}
	return out, nil
}

// stripEndpointSlice is the EndpointSlices' transform: of each endpoint its node and
// conditions (externalTrafficPolicy Local announces from nodes with a ready one);
// addresses, target references, zones, hints and ports go.
func stripEndpointSlice(obj any) (any, error) {
	s, ok := obj.(*discoveryv1.EndpointSlice)
	if !ok {
		return stripManagedFields(obj)
	}
	out := &discoveryv1.EndpointSlice{TypeMeta: s.TypeMeta, ObjectMeta: cachedMeta(&s.ObjectMeta), AddressType: s.AddressType,
		Endpoints: make([]discoveryv1.Endpoint, len(s.Endpoints))}
	for i, ep := range s.Endpoints {
		out.Endpoints[i] = discoveryv1.Endpoint{NodeName: ep.NodeName, Conditions: ep.Conditions}
	}
	return out, nil
}

// stripNodes is the Nodes' transform for the agent of node own: its own Node is kept
// whole (cordon, conditions, labels and annotations change what it announces); every
// other Node keeps only its name, addresses and pod CIDRs, which the agent never
// announces as a Service's address (intent.Reserved). Every Node is watched for those,
// so this cache grows with the cluster and its events with its square: each kubelet
// writes its Node's status at least every nodeStatusReportFrequency (5 minutes by
// default), which every agent receives.
func stripNodes(own string) toolscache.TransformFunc {
	return func(obj any) (any, error) {
		n, ok := obj.(*corev1.Node)
		if !ok || n.Name == own {
			return stripManagedFields(obj)
		}
		return &corev1.Node{TypeMeta: n.TypeMeta,
			ObjectMeta: metav1.ObjectMeta{Name: n.Name, UID: n.UID, ResourceVersion: n.ResourceVersion, DeletionTimestamp: n.DeletionTimestamp},
			Spec:       corev1.NodeSpec{PodCIDR: n.Spec.PodCIDR, PodCIDRs: n.Spec.PodCIDRs},
			Status:     corev1.NodeStatus{Addresses: n.Status.Addresses},
		}, nil
	}
}

// cacheOptions are the agent's cache options for node nodeName: only its own
// BGPNodeConfig (selected by name), every Node (stripNodes), and the transforms
// above. Secrets are not cached: the secret watch reads the ones peer configs name.
func cacheOptions(nodeName string) cache.Options {
	return cache.Options{
		DefaultTransform: stripManagedFields,
		ByObject: map[client.Object]cache.ByObject{
			&kbgpv1.BGPNodeConfig{}:      {Field: fields.OneTermEqualSelector("metadata.name", nodeName)},
			&corev1.Node{}:               {Transform: stripNodes(nodeName)},
			&corev1.Service{}:            {Transform: stripService},
			&discoveryv1.EndpointSlice{}: {Transform: stripEndpointSlice},
		},
	}
}
