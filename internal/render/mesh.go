package render

import (
	"fmt"
	"hash/fnv"
	"net/netip"
	"regexp"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// MeshNode is what the mesh needs of a node: its name, labels (reflectors are
// selected by label) and InternalIP addresses, the first of each family being the one
// it peers from.
type MeshNode struct {
	Name        string
	Labels      map[string]string
	InternalIPs []netip.Addr
}

// MeshMembers are the nodes cc wins, in the order given: the nodes of its mesh. A node
// another cluster config wins is not a member, even if cc selects it too.
func MeshMembers(cc *kbgpv1.BGPClusterConfig, selectors []ClusterConfigSelector, nodes []MeshNode) []MeshNode {
	var out []MeshNode
	for _, n := range nodes {
		if AssignNode(selectors, n.Labels).Winner == cc {
			out = append(out, n)
		}
	}
	return out
}

// WithMesh fills in the mesh part of each instance of nc, rendered from cc for the
// node self among members (self may be among them; it never peers with itself).
// nc's instances are cc's, in cc's order, as NodeConfig renders them. Each pair of
// nodes has one session per family both have an InternalIP of: the node with the
// lower address dials, the other is passive. With route reflectors, a reflector
// peers with every member (the other reflectors as plain iBGP neighbours, the rest as
// its clients) and a client only with the reflectors. A mesh peer whose name or
// address is also one of the instance's own peers is left out: the user's peer wins.
func WithMesh(nc *kbgpv1.BGPNodeConfig, cc *kbgpv1.BGPClusterConfig, self MeshNode, members []MeshNode) error {
	for i, inst := range cc.Spec.BGPInstances {
		if inst.Mesh == nil || !inst.Mesh.Enabled || i >= len(nc.Spec.BGPInstances) {
			continue
		}
		m, err := nodeMesh(inst.Mesh, self, members)
		if err != nil {
			return fmt.Errorf("mesh of instance %d: %w", inst.LocalASN, err)
		}
		ni := &nc.Spec.BGPInstances[i]
		m.Peers = slices.DeleteFunc(m.Peers, func(p kbgpv1.BGPMeshPeer) bool { return clashes(ni.Peers, p) })
		ni.Mesh = m
	}
	return nil
}

func nodeMesh(mesh *kbgpv1.BGPMesh, self MeshNode, members []MeshNode) (*kbgpv1.BGPNodeMesh, error) {
	out := &kbgpv1.BGPNodeMesh{PeerConfigRef: mesh.PeerConfigRef.DeepCopy()}
	isReflector := func(MeshNode) bool { return false }
	if rr := mesh.RouteReflectors; rr != nil {
		sel, err := metav1.LabelSelectorAsSelector(rr.NodeSelector.ToMetav1())
		if err != nil {
			return nil, fmt.Errorf("routeReflectors.nodeSelector: %w", err)
		}
		isReflector = func(n MeshNode) bool { return sel.Matches(labels.Set(n.Labels)) }
	}
	selfReflects := mesh.RouteReflectors != nil && isReflector(self)
	if selfReflects {
		out.ClusterID = mesh.RouteReflectors.ClusterID
	}
	for _, other := range members {
		if other.Name == self.Name {
			continue
		}
		role := kbgpv1.MeshRolePeer
		if mesh.RouteReflectors != nil {
			switch otherReflects := isReflector(other); {
			case selfReflects && !otherReflects:
				role = kbgpv1.MeshRoleClient
			case !selfReflects && otherReflects:
				role = kbgpv1.MeshRoleReflector
			case !selfReflects && !otherReflects:
				continue // two clients never peer
			}
		}
		for _, is4 := range []bool{true, false} {
			local, ok1 := firstOfFamily(self.InternalIPs, is4)
			remote, ok2 := firstOfFamily(other.InternalIPs, is4)
			if !ok1 || !ok2 || local == remote {
				continue
			}
			out.Peers = append(out.Peers, kbgpv1.BGPMeshPeer{
				Name: meshPeerName(other.Name, is4), Node: other.Name,
				PeerAddress: remote.String(), LocalAddress: local.String(),
				Role: role, Passive: local.Compare(remote) > 0,
			})
		}
	}
	slices.SortFunc(out.Peers, func(a, b kbgpv1.BGPMeshPeer) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

func firstOfFamily(addrs []netip.Addr, is4 bool) (netip.Addr, bool) {
	for _, a := range addrs {
		if a = a.Unmap(); a.Is4() == is4 && a.IsValid() && !a.IsUnspecified() {
			return a, true
		}
	}
	return netip.Addr{}, false
}

// clashes reports whether a mesh peer has the name or address of one of the
// instance's own peers in the default VRF.
func clashes(peers []kbgpv1.BGPNodePeer, mp kbgpv1.BGPMeshPeer) bool {
	addr, _ := netip.ParseAddr(mp.PeerAddress)
	return slices.ContainsFunc(peers, func(p kbgpv1.BGPNodePeer) bool {
		if p.Name == mp.Name {
			return true
		}
		a, err := netip.ParseAddr(p.PeerAddress)
		return err == nil && p.VRF == "" && a.Unmap() == addr
	})
}

var dnsLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// maxNodePart keeps "mesh-" + node part + "-v4" within a DNS label's 63 characters.
const maxNodePart = 63 - len("mesh-") - len("-v4")

// meshPeerName is "mesh-<node>-v4" or "-v6". A node name that is no DNS label (a
// dotted FQDN) or is too long is cut and given a hash of the whole name, so two nodes
// never share a peer name.
func meshPeerName(node string, is4 bool) string {
	fam := "-v6"
	if is4 {
		fam = "-v4"
	}
	part := node
	if !dnsLabel.MatchString(node) || len(node) > maxNodePart {
		h := fnv.New32a()
		h.Write([]byte(node))
		keep := []byte{}
		for _, c := range []byte(node) {
			if len(keep) == maxNodePart-9 {
				break
			}
			if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' {
				keep = append(keep, c)
			} else {
				keep = append(keep, '-')
			}
		}
		part = fmt.Sprintf("%s-%08x", keep, h.Sum32())
	}
	return "mesh-" + part + fam
}
