package bgp

import (
	"net/netip"
	"time"
)

// SessionState is a BGP finite-state-machine state (RFC 4271 section 8).
type SessionState string

// The FSM states, named as in BGPNodeConfig status.
const (
	StateIdle        SessionState = "Idle"
	StateConnect     SessionState = "Connect"
	StateActive      SessionState = "Active"
	StateOpenSent    SessionState = "OpenSent"
	StateOpenConfirm SessionState = "OpenConfirm"
	StateEstablished SessionState = "Established"
)

// SessionStates are the FSM states in RFC 4271 order: the one list that the node
// status (the peeringState enum), the kbgp_session_state metric and the speaker model
// share; TestSessionStatesAreOneList pins them together.
var SessionStates = []SessionState{StateIdle, StateConnect, StateActive, StateOpenSent, StateOpenConfirm, StateEstablished}

// PeerStatus is what a speaker reports about one peer.
type PeerStatus struct {
	Address netip.Addr
	State   SessionState
	// EstablishedSince is when the session last reached Established; zero when it is not.
	EstablishedSince time.Time
	// HoldTime and Keepalive are the negotiated timers; zero before Established.
	HoldTime  time.Duration
	Keepalive time.Duration
	// RemoteRouterID is the router ID the peer sent in its OPEN, RemoteASN its ASN
	// (what a peer with a DynamicASN turned out to have); zero before one came.
	RemoteRouterID netip.Addr
	RemoteASN      uint32
	// LastDownReason says why the session last went down ("" when it never did), e.g. a
	// NOTIFICATION's code and subcode or "hold timer expired".
	LastDownReason string
	// Drops counts how often the session left Established since the peer was added, so
	// that a flap between two looks at the state is not lost.
	Drops uint64
	// ReceivedByFamily counts the prefixes received from the peer per address family
	// (none are ever imported).
	ReceivedByFamily map[Family]uint64
	// HeldDown says why the speaker holds the session down ("" when it does not), e.g.
	// HeldDownMaxPrefixes; HeldDownDetail explains it.
	HeldDown, HeldDownDetail string
	// HeldDowns counts the hold-downs since the peer was added, so that one that began
	// between two looks at the state (after a retry) is not lost.
	HeldDowns uint64
	// BFDState is the state of the peer's BFD session; "" when BFD is off.
	BFDState BFDState
	// AddPathsSend holds the families in which ADD-PATH send was negotiated: the peer
	// configured for it advertised that it receives several paths. Empty unless
	// Established.
	AddPathsSend map[Family]bool
}

// BFDState is a BFD session state (RFC 5880 section 4.1), named as in BGPNodeConfig
// status.
type BFDState string

// The BFD states.
const (
	BFDUp        BFDState = "Up"
	BFDInit      BFDState = "Init"
	BFDDown      BFDState = "Down"
	BFDAdminDown BFDState = "AdminDown"
)

// HeldDownMaxPrefixes: the peer sent more routes than its MaxPrefixes allow.
const HeldDownMaxPrefixes = "MaxPrefixExceeded"

// Received is the number of prefixes received over all families.
func (s PeerStatus) Received() uint64 {
	var n uint64
	for _, c := range s.ReceivedByFamily {
		n += c
	}
	return n
}
