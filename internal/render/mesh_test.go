package render

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

func meshNode(name string, labels map[string]string, addrs ...string) MeshNode {
	n := MeshNode{Name: name, Labels: labels}
	for _, a := range addrs {
		n.InternalIPs = append(n.InternalIPs, netip.MustParseAddr(a))
	}
	return n
}

func meshConfig(rr *kbgpv1.BGPRouteReflectors, peers ...kbgpv1.BGPPeer) *kbgpv1.BGPClusterConfig {
	inst := instance(65001, peers...)
	inst.LocalPort = ptrTo(int32(179))
	inst.Mesh = &kbgpv1.BGPMesh{Enabled: true, PeerConfigRef: &kbgpv1.PeerConfigReference{Name: "mesh"}, RouteReflectors: rr}
	cc := clusterConfig("mesh", time.Hour, nil, inst, instance(65100))
	return &cc
}

// meshOf renders self's mesh peers of the first instance as "name role passive local>remote".
func meshOf(t *testing.T, cc *kbgpv1.BGPClusterConfig, self MeshNode, members []MeshNode) []string {
	t.Helper()
	nc, _ := NodeConfig(cc, Node{Name: self.Name}, nil)
	if err := WithMesh(nc, cc, self, members); err != nil {
		t.Fatal(err)
	}
	if nc.Spec.BGPInstances[1].Mesh != nil {
		t.Errorf("instance without a mesh got one: %+v", nc.Spec.BGPInstances[1].Mesh)
	}
	m := nc.Spec.BGPInstances[0].Mesh
	if m == nil {
		return nil
	}
	var out []string
	for _, p := range m.Peers {
		s := p.Name + " " + string(p.Role) + " " + p.LocalAddress + ">" + p.PeerAddress
		if p.Passive {
			s += " passive"
		}
		out = append(out, s)
	}
	return out
}

func TestMeshPeers(t *testing.T) {
	rrLabel := map[string]string{"rr": "yes"}
	reflectors := &kbgpv1.BGPRouteReflectors{NodeSelector: *matchLabels("rr", "yes"), ClusterID: "10.0.0.1"}
	n1 := meshNode("n1", nil, "10.1.0.1", "2001:db8:1::1")
	n2 := meshNode("n2", nil, "10.1.0.2", "2001:db8:1::2")
	n3 := meshNode("n3", nil, "10.1.0.3")
	r1 := meshNode("r1", rrLabel, "10.1.0.11")
	r2 := meshNode("r2", rrLabel, "10.1.0.12")
	tests := []struct {
		name    string
		cc      *kbgpv1.BGPClusterConfig
		self    MeshNode
		members []MeshNode
		want    []string
	}{
		{
			name: "full mesh: lower address dials, dual stack where both have it",
			cc:   meshConfig(nil), self: n2, members: []MeshNode{n1, n2, n3},
			want: []string{
				"mesh-n1-v4 Mesh 10.1.0.2>10.1.0.1 passive",
				"mesh-n1-v6 Mesh 2001:db8:1::2>2001:db8:1::1 passive",
				"mesh-n3-v4 Mesh 10.1.0.2>10.1.0.3",
			},
		},
		{
			name: "alone: no peers", cc: meshConfig(nil), self: n1, members: []MeshNode{n1},
		},
		{
			name: "member without addresses is left out", cc: meshConfig(nil), self: n1,
			members: []MeshNode{n1, meshNode("bare", nil)},
		},
		{
			name: "reflector: clients and the other reflector",
			cc:   meshConfig(reflectors), self: r1, members: []MeshNode{n1, n3, r1, r2},
			want: []string{
				"mesh-n1-v4 RouteReflectorClient 10.1.0.11>10.1.0.1 passive",
				"mesh-n3-v4 RouteReflectorClient 10.1.0.11>10.1.0.3 passive",
				"mesh-r2-v4 Mesh 10.1.0.11>10.1.0.12",
			},
		},
		{
			name: "client: the reflectors only",
			cc:   meshConfig(reflectors), self: n3, members: []MeshNode{n1, n3, r1, r2},
			want: []string{
				"mesh-r1-v4 RouteReflector 10.1.0.3>10.1.0.11",
				"mesh-r2-v4 RouteReflector 10.1.0.3>10.1.0.12",
			},
		},
		{
			name: "user peer with a member's address wins",
			cc:   meshConfig(nil, peer("tor", "10.1.0.3", 65001, "")), self: n1, members: []MeshNode{n1, n2, n3},
			want: []string{"mesh-n2-v4 Mesh 10.1.0.1>10.1.0.2", "mesh-n2-v6 Mesh 2001:db8:1::1>2001:db8:1::2"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, meshOf(t, tc.cc, tc.self, tc.members)); diff != "" {
				t.Errorf("mesh peers (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMeshPairHasOneActiveSide checks every pair of a mesh: exactly one side dials.
func TestMeshPairHasOneActiveSide(t *testing.T) {
	cc := meshConfig(nil)
	members := []MeshNode{
		meshNode("a", nil, "10.1.0.9", "2001:db8::1"), meshNode("b", nil, "10.1.0.10", "2001:db8::ff"),
		meshNode("c", nil, "10.1.0.200"), meshNode("d", nil, "2001:db8::10"),
	}
	passive := map[[2]string]bool{}
	for _, self := range members {
		nc, _ := NodeConfig(cc, Node{Name: self.Name}, nil)
		if err := WithMesh(nc, cc, self, members); err != nil {
			t.Fatal(err)
		}
		for _, p := range nc.Spec.BGPInstances[0].Mesh.Peers {
			passive[[2]string{p.LocalAddress, p.PeerAddress}] = p.Passive
		}
	}
	for pair, p := range passive {
		back, ok := passive[[2]string{pair[1], pair[0]}]
		if !ok {
			t.Errorf("%s peers with %s, not the reverse", pair[0], pair[1])
		} else if p == back {
			t.Errorf("%s-%s: passive on both sides or neither (%v)", pair[0], pair[1], p)
		}
	}
	if len(passive) != 12 { // IPv4 among a, b, c and IPv6 among a, b, d: 6 pairs, each seen from both ends
		t.Errorf("got %d session ends, want 12: %v", len(passive), passive)
	}
}

func TestMeshMembersAreTheNodesTheConfigWins(t *testing.T) {
	older := clusterConfig("older", 2*time.Hour, matchLabels("rack", "a"), instance(65001))
	mesh := meshConfig(nil)
	selectors, _ := ParseSelectors([]kbgpv1.BGPClusterConfig{older, *mesh})
	got := MeshMembers(selectors[1].Config, selectors, []MeshNode{
		meshNode("in-a", map[string]string{"rack": "a"}), meshNode("in-b", map[string]string{"rack": "b"}), meshNode("none", nil),
	})
	var names []string
	for _, n := range got {
		names = append(names, n.Name)
	}
	if diff := cmp.Diff([]string{"in-b", "none"}, names); diff != "" {
		t.Errorf("members (-want +got):\n%s", diff)
	}
}

func TestMeshPeerNames(t *testing.T) {
	long := strings.Repeat("n", 70)
	for _, tc := range []struct{ node, want string }{
		{"worker-1", "mesh-worker-1-v4"},
		{"worker-1.example.com", "mesh-worker-1-example-com-"},
		{long, "mesh-" + strings.Repeat("n", 46) + "-"},
	} {
		got := meshPeerName(tc.node, true)
		if !strings.HasPrefix(got, tc.want) || len(got) > 63 || !dnsLabel.MatchString(got) || !strings.HasSuffix(got, "-v4") {
			t.Errorf("meshPeerName(%q) = %q, want a DNS label starting %q", tc.node, got, tc.want)
		}
	}
	if a, b := meshPeerName(long+"a", true), meshPeerName(long+"b", true); a == b {
		t.Errorf("two long names share the peer name %s", a)
	}
}

func TestMissingPeerConfigsIncludeTheMesh(t *testing.T) {
	cc := meshConfig(nil, peer("tor", "10.9.9.9", 65002, "tor"))
	if diff := cmp.Diff([]string{"mesh"}, MissingPeerConfigs(cc, map[string]bool{"tor": true})); diff != "" {
		t.Errorf("missing (-want +got):\n%s", diff)
	}
	cc.Spec.BGPInstances[0].Mesh.Enabled = false
	if got := MissingPeerConfigs(cc, map[string]bool{"tor": true}); len(got) != 0 {
		t.Errorf("a disabled mesh's peer config reported missing: %v", got)
	}
}
