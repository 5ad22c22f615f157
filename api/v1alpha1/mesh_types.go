package v1alpha1

// BGPMesh makes the nodes a cluster config selects peer with each other over iBGP
// (the instance's local ASN), so pod routes reach every node with no router: as a full
// mesh, or, with RouteReflectors, through reflectors among the nodes. See
// docs/mesh.md.
type BGPMesh struct {
	// Enabled turns the mesh on.
	Enabled bool `json:"enabled"`

	// PeerConfigRef names the BGPPeerConfig of the mesh sessions: timers, graceful
	// restart, BFD, and the families with importPodRoutes (without it the sessions
	// get defaults and neither advertise nor import anything).
	// +optional
	PeerConfigRef *PeerConfigReference `json:"peerConfigRef,omitempty"`

	// RouteReflectors, when set, turns the full mesh into route reflection: the nodes
	// it selects peer with every selected node, the others only with them.
	// +optional
	RouteReflectors *BGPRouteReflectors `json:"routeReflectors,omitempty"`
}

// BGPRouteReflectors are the in-cluster route reflectors (RFC 4456) of a mesh.
type BGPRouteReflectors struct {
	// NodeSelector selects the reflectors among the nodes the cluster config selects.
	NodeSelector LabelSelector `json:"nodeSelector"`

	// ClusterID is the reflectors' cluster ID, an IPv4 address literal: the
	// reflectors share it, so a route reflected by one is not reflected back by
	// another.
	// +kubebuilder:validation:MaxLength=15
	// +kubebuilder:validation:XValidation:rule="isIP(self) && ip(self).family() == 4",message="clusterID must be an IPv4 address"
	ClusterID string `json:"clusterID"`
}

// BGPMeshRole is what a mesh peer is to the node that has it.
// +kubebuilder:validation:Enum=Mesh;RouteReflector;RouteReflectorClient
type BGPMeshRole string

// Mesh roles.
const (
	// MeshRolePeer is a plain iBGP neighbour: full mesh, or reflector to reflector.
	MeshRolePeer BGPMeshRole = "Mesh"
	// MeshRoleReflector is a reflector this node is a client of.
	MeshRoleReflector BGPMeshRole = "RouteReflector"
	// MeshRoleClient is a client this node reflects routes for.
	MeshRoleClient BGPMeshRole = "RouteReflectorClient"
)

// BGPNodeMesh is a node's part of a mesh, rendered by the operator.
type BGPNodeMesh struct {
	// PeerConfigRef is the mesh's BGPPeerConfig.
	// +optional
	PeerConfigRef *PeerConfigReference `json:"peerConfigRef,omitempty"`

	// ClusterID is the route reflector cluster ID this node reflects with; set only
	// on a reflector.
	// +optional
	// +kubebuilder:validation:MaxLength=15
	ClusterID string `json:"clusterID,omitempty"`

	// Peers are the other nodes this node peers with, one per address family both
	// have an InternalIP of. They are kept apart from the instance's peers so a
	// mesh can hold many more nodes than an instance has peers.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=256
	Peers []BGPMeshPeer `json:"peers,omitempty"`
}

// BGPMeshPeer is another node of the mesh, as one node peers with it.
type BGPMeshPeer struct {
	// Name identifies the peer among the instance's peers: "mesh-", the node's
	// name (shortened with a hash when it is no DNS label or too long) and "-v4" or
	// "-v6".
	// +kubebuilder:validation:MaxLength=63
	Name string `json:"name"`

	// Node is the peer node's name.
	// +kubebuilder:validation:MaxLength=253
	Node string `json:"node"`

	// PeerAddress is the peer node's InternalIP of the family.
	// +kubebuilder:validation:MaxLength=45
	PeerAddress string `json:"peerAddress"`

	// LocalAddress is this node's InternalIP of the family, the session's source.
	// +kubebuilder:validation:MaxLength=45
	LocalAddress string `json:"localAddress"`

	// Role is what the peer is to this node.
	Role BGPMeshRole `json:"role"`

	// Passive: this node waits for the peer to connect and never dials it, so a pair
	// of nodes has one session. Of a pair, the node with the lower address dials.
	// +optional
	Passive bool `json:"passive,omitempty"`
}

// AllPeers returns the instance's peers followed by its mesh peers as node peers
// (iBGP: the peer ASN is the instance's), each with Mesh set: the agent runs, and
// reports, both alike.
func (in *BGPNodeInstance) AllPeers() []BGPNodePeer {
	if in.Mesh == nil || len(in.Mesh.Peers) == 0 {
		return in.Peers
	}
	out := make([]BGPNodePeer, 0, len(in.Peers)+len(in.Mesh.Peers))
	out = append(out, in.Peers...)
	for i := range in.Mesh.Peers {
		mp := &in.Mesh.Peers[i]
		out = append(out, BGPNodePeer{
			BGPPeer:           BGPPeer{Name: mp.Name, PeerAddress: mp.PeerAddress, PeerASN: in.LocalASN, PeerConfigRef: in.Mesh.PeerConfigRef.DeepCopy()},
			PeerLocalEndpoint: PeerLocalEndpoint{LocalAddress: mp.LocalAddress},
			Mesh:              mp,
		})
	}
	return out
}
