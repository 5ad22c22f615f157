package v1alpha1

// BGPAddPaths is the ADD-PATH (RFC 7911) configuration of one family of a peer.
type BGPAddPaths struct {
	// SendMax is the most paths per prefix sent to the peer, when the peer advertises
	// that it receives several (the status's addPaths says whether it did; otherwise it
	// gets one path per prefix as without ADD-PATH). A node sends the paths it holds:
	// the one it originates, and on a mesh route reflector also the paths of the
	// clients that announce the same prefix.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=255
	SendMax int32 `json:"sendMax"`
}

// AddPathsState says whether ADD-PATH send was negotiated in a family.
// +kubebuilder:validation:Enum=Negotiated;NotNegotiated
type AddPathsState string

// The ADD-PATH send states.
const (
	// AddPathsNegotiated: the peer receives several paths per prefix.
	AddPathsNegotiated AddPathsState = "Negotiated"
	// AddPathsNotNegotiated: the peer did not advertise ADD-PATH receive for the
	// family; it gets one path per prefix.
	AddPathsNotNegotiated AddPathsState = "NotNegotiated"
)

// BGPAddPathsStatus reports ADD-PATH send in one family whose peer config asks for it.
type BGPAddPathsStatus struct {
	AFI  AFI  `json:"afi"`
	SAFI SAFI `json:"safi"`

	// Send says whether the peer accepted several paths per prefix.
	Send AddPathsState `json:"send"`
}
