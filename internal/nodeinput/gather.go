// Package nodeinput reads, through a Kubernetes client, what intent.Build needs for one
// node. The agent (from its cache) and `kubectl bgp routes` (from the API server) both
// use it, so what the plugin shows is computed from exactly what the agent reads.
// What only the agent knows — the Node as its TTL cache saw it, decided router IDs,
// missing VRF devices, what its speakers run now — each caller adds itself.
package nodeinput

import (
	"context"
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/intent"
)

// Sources are where the gatherer reads.
type Sources struct {
	// Reader reads the kbgp kinds, Services and EndpointSlices.
	Reader client.Reader
	// Secret returns the Secret of the agent's namespace named name, or nil when it does
	// not exist. The agent reads only the Secrets peer configs name (see its secret
	// watch); the plugin reads them from the API server or stands in for them.
	Secret func(ctx context.Context, name string) (*corev1.Secret, error)
	// Cached is set when Reader is an informer cache: Services and EndpointSlices are
	// then listed without deep copies (intent.Build only reads them, and a full build
	// with 100k Services must not copy them all).
	Cached bool
}

// Cluster is what every node's input shares: the advertisements, and every Service with
// its EndpointSlices.
type Cluster struct {
	Advertisements      []kbgpv1.BGPAdvertisement
	LoadBalancerIPPools []kbgpv1.LoadBalancerIPPool
	Services            []corev1.Service
	EndpointSlices      map[types.NamespacedName][]discoveryv1.EndpointSlice
	// Reserved are the cluster's reserved addresses (ReadReserved); ReadCluster leaves
	// it nil, the agent keeps its own from its watches.
	Reserved *intent.Reserved
}

// ReadCluster lists what every node's input shares, once.
func ReadCluster(ctx context.Context, src Sources) (Cluster, error) {
	var opts []client.ListOption
	if src.Cached {
		opts = append(opts, client.UnsafeDisableDeepCopy)
	}
	ads := &kbgpv1.BGPAdvertisementList{}
	if err := src.Reader.List(ctx, ads); err != nil {
		return Cluster{}, fmt.Errorf("list BGPAdvertisements: %w", err)
	}
	pools := &kbgpv1.LoadBalancerIPPoolList{}
	if err := src.Reader.List(ctx, pools); err != nil {
		return Cluster{}, fmt.Errorf("list LoadBalancerIPPools: %w", err)
	}
	svcs := &corev1.ServiceList{}
	if err := src.Reader.List(ctx, svcs, opts...); err != nil {
		return Cluster{}, fmt.Errorf("list Services: %w", err)
	}
	epSlices := &discoveryv1.EndpointSliceList{}
	if err := src.Reader.List(ctx, epSlices, opts...); err != nil {
		return Cluster{}, fmt.Errorf("list EndpointSlices: %w", err)
	}
	out := Cluster{Advertisements: ads.Items, LoadBalancerIPPools: pools.Items, Services: svcs.Items, EndpointSlices: map[types.NamespacedName][]discoveryv1.EndpointSlice{}}
	for _, s := range epSlices.Items {
		if svc, ok := intent.EndpointSliceService(&s); ok {
			out.EndpointSlices[svc] = append(out.EndpointSlices[svc], s)
		}
	}
	return out, nil
}

// ReadNodeConfig reads the node's BGPNodeConfig; nil when the node has none (no cluster
// config selects it).
func ReadNodeConfig(ctx context.Context, r client.Reader, node string) (*kbgpv1.BGPNodeConfig, error) {
	nc := &kbgpv1.BGPNodeConfig{}
	if err := r.Get(ctx, types.NamespacedName{Name: node}, nc); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("get BGPNodeConfig %s: %w", node, err)
	}
	return nc, nil
}

// ForNode completes the input of one node config: the peer configs its peers name and
// the Secrets those name, each read once, keyed by the name that references them; a
// missing object is simply absent (intent.Build reports it).
func ForNode(ctx context.Context, src Sources, cluster Cluster, nc *kbgpv1.BGPNodeConfig) (intent.Input, error) {
	in := intent.Input{
		NodeConfig: nc, Advertisements: cluster.Advertisements, LoadBalancerIPPools: cluster.LoadBalancerIPPools,
		Services: cluster.Services, EndpointSlices: cluster.EndpointSlices, Reserved: cluster.Reserved,
		PeerConfigs: map[string]*kbgpv1.BGPPeerConfig{}, Secrets: map[string]*corev1.Secret{},
	}
	for _, name := range referencedPeerConfigs(nc) {
		pc := &kbgpv1.BGPPeerConfig{}
		if err := src.Reader.Get(ctx, types.NamespacedName{Name: name}, pc); err != nil {
			if apierrors.IsNotFound(err) {
				continue
			}
			return in, fmt.Errorf("get BGPPeerConfig %s: %w", name, err)
		}
		in.PeerConfigs[name] = pc
	}
	for _, name := range ReferencedSecrets(in.PeerConfigs) {
		s, err := src.Secret(ctx, name)
		if err != nil {
			return in, fmt.Errorf("get Secret %s: %w", name, err)
		}
		if s != nil {
			in.Secrets[name] = s
		}
	}
	return in, nil
}

// referencedPeerConfigs are the peer configs the node's peers name, sorted.
func referencedPeerConfigs(nc *kbgpv1.BGPNodeConfig) []string {
	set := map[string]bool{}
	for _, inst := range nc.Spec.BGPInstances {
		for _, p := range inst.AllPeers() {
			if p.PeerConfigRef != nil {
				set[p.PeerConfigRef.Name] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// ReferencedSecrets are the Secrets the peer configs name, sorted.
func ReferencedSecrets(pcs map[string]*kbgpv1.BGPPeerConfig) []string {
	set := map[string]bool{}
	for _, pc := range pcs {
		if pc.Spec.AuthSecretRef != nil {
			set[*pc.Spec.AuthSecretRef] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}
