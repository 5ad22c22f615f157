package integration

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// objectSeq makes object names unique across the package's tests, which share one
// API server.
var objectSeq atomic.Int64

// newObject builds a kbgp object of kind from the YAML of its spec, with a fresh name.
func newObject(t *testing.T, kind, specYAML string) *unstructured.Unstructured {
	t.Helper()
	spec := map[string]any{}
	if err := yaml.Unmarshal([]byte(specYAML), &spec); err != nil {
		t.Fatalf("spec YAML of %s: %v\n%s", kind, err, specYAML)
	}
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kbgp.io/v1alpha1",
		"kind":       kind,
		"metadata":   map[string]any{"name": fmt.Sprintf("obj-%d", objectSeq.Add(1))},
		"spec":       spec,
	}}
	return u
}

// create submits obj to the API server and deletes it when the test ends.
func create(t *testing.T, obj *unstructured.Unstructured) error {
	t.Helper()
	ctx := context.Background()
	err := server.Client.Create(ctx, obj)
	if err == nil {
		t.Cleanup(func() { _ = server.Client.Delete(context.Background(), obj) })
	}
	return err
}

// indent prefixes every line of s with n spaces, to splice YAML fragments.
func indent(n int, s string) string {
	pad := strings.Repeat(" ", n)
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i, l := range lines {
		lines[i] = pad + l
	}
	return strings.Join(lines, "\n")
}

// clusterInstance is a BGPClusterConfig spec with one valid peer and the given extra
// instance fields (YAML at instance level).
func clusterInstance(fields string) string {
	return `
bgpInstances:
- localASN: 65001
` + indent(2, fields) + `
  peers:
  - {name: tor-a, peerAddress: 10.1.1.1, peerASN: 65002}
`
}

// clusterRouterID is a BGPClusterConfig spec whose instance has the given routerID.
func clusterRouterID(routerID string) string {
	q, _ := yaml.Marshal(routerID)
	return clusterInstance("routerID: " + strings.TrimSpace(string(q)))
}

// clusterPeers is a BGPClusterConfig spec with one instance and the given peers list.
func clusterPeers(peers string) string {
	return `
bgpInstances:
- localASN: 65001
  peers:
` + indent(2, peers) + "\n"
}

// clusterSelector is a valid BGPClusterConfig spec with the given nodeSelector.
func clusterSelector(selector string) string {
	return "nodeSelector:\n" + indent(2, selector) + clusterInstance("")
}

// serviceAdvertisement is a BGPAdvertisement spec with one Service advertisement and
// the given extra fields.
func serviceAdvertisement(fields string) string {
	return `
advertisements:
- advertisementType: Service
  service: {addresses: [LoadBalancerIP]}
` + indent(2, fields) + "\n"
}

// overrideInstance is a BGPNodeConfigOverride spec for worker-1 with one instance
// carrying the given extra fields.
func overrideInstance(fields string) string {
	return `
nodeRef: worker-1
bgpInstances:
- localASN: 65001
` + indent(2, fields) + "\n"
}
