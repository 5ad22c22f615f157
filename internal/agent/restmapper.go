package agent

import (
	"fmt"
	"net/http"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// agentKinds are the kinds the agent reads and writes through its manager's client and
// cache, with whether each is namespaced. The agent's REST mapper knows these and no
// other: discovery needs the API server, and an agent must start (and restore its
// speakers from the checkpoint) while the API server is unreachable.
var agentKinds = []struct {
	obj        client.Object
	namespaced bool
}{
	{&kbgpv1.BGPNodeConfig{}, false},
	{&kbgpv1.BGPPeerConfig{}, false},
	{&kbgpv1.BGPAdvertisement{}, false},
	{&kbgpv1.LoadBalancerIPPool{}, false},
	{&corev1.Node{}, false},
	{&corev1.Service{}, true},
	{&discoveryv1.EndpointSlice{}, true},
	{&coordinationv1.Lease{}, true},
}

// staticRESTMapper maps agentKinds without asking the API server (the manager's
// default mapper runs discovery when the manager is created and fails without it).
func staticRESTMapper(scheme *runtime.Scheme) (meta.RESTMapper, error) {
	m := meta.NewDefaultRESTMapper(nil)
	for _, k := range agentKinds {
		gvk, err := apiutil.GVKForObject(k.obj, scheme)
		if err != nil {
			return nil, fmt.Errorf("REST mapping of %T: %w", k.obj, err)
		}
		scope := meta.RESTScopeRoot
		if k.namespaced {
			scope = meta.RESTScopeNamespace
		}
		m.Add(gvk, scope)
	}
	return m, nil
}

// mapperProvider is the manager's MapperProvider: the static mapper of the agent's
// kinds, whatever the API server says.
func mapperProvider(scheme *runtime.Scheme) func(*rest.Config, *http.Client) (meta.RESTMapper, error) {
	return func(*rest.Config, *http.Client) (meta.RESTMapper, error) { return staticRESTMapper(scheme) }
}
