//go:build bench

package bench

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"testing"
	"time"

	"k8s.io/utils/ptr"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/render"
)

// TestMeshRender measures the operator's side of a full mesh of n nodes: a node
// joining re-renders every node of the mesh, each render O(n), so a join costs O(n²);
// and the size of one node's config, which every agent watches its own of. It does
// not measure the agents (sessions, convergence, memory).
func TestMeshRender(t *testing.T) {
	for _, n := range []int{50, 100, 200} {
		t.Run(fmt.Sprintf("nodes=%d", n), func(t *testing.T) {
			cc := &kbgpv1.BGPClusterConfig{Spec: kbgpv1.BGPClusterConfigSpec{BGPInstances: []kbgpv1.BGPInstance{{
				BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: 64512, LocalPort: ptr.To[int32](179)},
				Mesh:                &kbgpv1.BGPMesh{Enabled: true, PeerConfigRef: &kbgpv1.PeerConfigReference{Name: "mesh"}},
			}}}}
			nodes := make([]render.MeshNode, n)
			for i := range nodes {
				nodes[i] = render.MeshNode{Name: fmt.Sprintf("worker-%03d", i),
					InternalIPs: []netip.Addr{netip.AddrFrom4([4]byte{10, 0, byte(i / 250), byte(1 + i%250)})}}
			}
			start := time.Now()
			var size int
			for _, self := range nodes {
				nc, _ := render.NodeConfig(cc, render.Node{Name: self.Name}, nil)
				if err := render.WithMesh(nc, cc, self, nodes); err != nil {
					t.Fatal(err)
				}
				b, err := json.Marshal(nc)
				if err != nil {
					t.Fatal(err)
				}
				size = len(b)
			}
			took := time.Since(start)
			t.Logf("MESH nodes=%d: a join re-renders %d node configs in %s (%s each, render and JSON encoding), one config %d bytes with %d mesh peers",
				n, n, took.Round(time.Microsecond), (took / time.Duration(n)).Round(time.Microsecond), size, n-1)
		})
	}
}
