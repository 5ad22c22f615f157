package bgp

import (
	"cmp"
	"fmt"
	"net/netip"
	"time"
)

// InstanceKey names one BGP speaker on a node. An instance of the cluster config runs
// one speaker per VRF its peers use (the equivalent of FRR's `router bgp ASN vrf NAME`),
// so the key carries the VRF; "" is the default VRF.
type InstanceKey struct {
	LocalASN uint32
	VRF      string
}

// String renders the key for logs and metric labels: "65001" or "65001/red".
func (k InstanceKey) String() string {
	if k.VRF == "" {
		return fmt.Sprint(k.LocalASN)
	}
	return fmt.Sprintf("%d/%s", k.LocalASN, k.VRF)
}

// Compare orders keys by ASN, then VRF, for output that does not depend on map order.
func (k InstanceKey) Compare(o InstanceKey) int {
	if c := cmp.Compare(k.LocalASN, o.LocalASN); c != 0 {
		return c
	}
	return cmp.Compare(k.VRF, o.VRF)
}

// Global is what a speaker is started with. A change to any of these fields needs a new
// speaker: BGP has no way to change the ASN or router ID of a running session, and the
// listener is bound once.
type Global struct {
	ASN      uint32
	RouterID netip.Addr
	// ListenPort is the TCP port the speaker accepts sessions on; 0 means it does not
	// listen at all and only dials out.
	ListenPort uint16
	// ListenAddresses restricts the listener to these addresses; empty means every
	// address. Ignored when ListenPort is 0.
	ListenAddresses []netip.Addr
	// BindDevice is the VRF (or interface) the speaker's sockets are bound to with
	// SO_BINDTODEVICE; "" for the default VRF.
	BindDevice string
	// Restarting starts the speaker as a restarting graceful-restart speaker (RFC 4724):
	// its peers with graceful restart are told that it kept forwarding state, so they
	// keep its routes until its End-of-RIB. It is a start-up condition, not
	// configuration: a change of it recreates nothing.
	Restarting bool
}

// Family is an address family the speaker runs with a peer.
type Family string

// The families kbgp runs.
const (
	FamilyIPv4Unicast Family = "ipv4-unicast"
	FamilyIPv6Unicast Family = "ipv6-unicast"
)

// Timers are the session timers of a peer.
type Timers struct {
	ConnectRetry time.Duration
	HoldTime     time.Duration
	Keepalive    time.Duration
}

// GracefulRestart is the RFC 4724 configuration of a peer. It is negotiated only for the
// peer's families.
type GracefulRestart struct {
	Enabled     bool
	RestartTime time.Duration
	// LongLivedStaleTime is how long past RestartTime a peer that negotiated long-lived
	// graceful restart (RFC 9494) keeps the routes; zero: not negotiated.
	LongLivedStaleTime time.Duration
}

// Peer is one configured BGP neighbour of a speaker. Peers are keyed by Name inside an
// instance; Address alone is never a key, since two VRFs may use the same one.
type Peer struct {
	Name string
	// Address is the neighbour's address; for a peer over an interface, its IPv6
	// link-local address zoned with the interface's name.
	Address netip.Addr
	// Interface is the interface an unnumbered session runs over (empty for a peer
	// with an address): the session's socket is scoped to it by Address's zone.
	Interface string
	// ASN is the neighbour's ASN; 0 with DynamicASN set: any ASN of that kind, learned
	// from the peer's OPEN. (Omitted from the agent's checkpoint when unset, so that
	// a checkpoint without it is what an agent before it wrote and reads.)
	ASN        uint32
	DynamicASN ASNKind `json:",omitempty"`
	// Port is the peer's TCP port (179 by default).
	Port uint16
	// LocalAddress is the source address of the session; invalid means "chosen by the
	// kernel".
	LocalAddress netip.Addr
	// LocalPort is the source port of the session; 0 means ephemeral.
	LocalPort uint16
	Timers    Timers
	// EBGPMultihopTTL is the IP TTL of an eBGP session; 0 or 1 is a directly connected
	// peer. Ignored for iBGP.
	EBGPMultihopTTL uint8
	GracefulRestart GracefulRestart
	Families        []Family
	// Password is the TCP MD5 key; empty means none.
	Password Password
	// BindDevice is the VRF (or interface) the session's socket is bound to.
	BindDevice string
	// MaxPrefixes caps the routes the peer may send, per family (absent: no cap). Past
	// it the speaker closes the session and holds it down (PeerStatus.HeldDown).
	MaxPrefixes map[Family]uint32
	// BFD runs beside the session; it is not negotiated in BGP, so a change of it
	// applies to the running session.
	BFD BFD
	// Passive: the speaker never dials the peer and waits for it to connect (a mesh
	// pair of nodes has one session: one side dials).
	Passive bool
	// RouteReflectorClusterID, when set, makes the speaker a route reflector (RFC
	// 4456) for this peer: it takes in the routes the peer sends and reflects routes
	// to it, with this cluster ID; RouteReflectorClient says whether the peer is one
	// of its clients (it is sent the routes of non-clients as well). Both are local
	// to the speaker: a change applies to the running session.
	RouteReflectorClient    bool
	RouteReflectorClusterID netip.Addr
	// ImportPodRoutes are the families whose received routes the speaker reports to
	// its RouteSink (the pod network installs the other nodes' pod CIDRs); a change
	// applies to the running session. The speaker itself never imports a route.
	ImportPodRoutes []Family
	// AddPathsSend is, per family, the most paths per prefix the speaker sends when the
	// peer negotiates ADD-PATH receive (RFC 7911); absent: ADD-PATH send is off. A
	// capability in OPEN, so a change needs a new session.
	AddPathsSend map[Family]uint8
	// ImportRoutes are the families whose received routes the speaker reports to its
	// RouteSink for the node's kernel under an import policy; like ImportPodRoutes, a
	// change applies to the running session.
	ImportRoutes map[Family]RouteImport
}

// ASNKind is the kind of ASN a peer without a fixed one may have.
type ASNKind string

// The ASN kinds: Internal is the speaker's own ASN, External any other.
const (
	ASNInternal ASNKind = "Internal"
	ASNExternal ASNKind = "External"
)

// IBGP says whether the session with the peer is internal BGP for a speaker of
// localASN.
func (p Peer) IBGP(localASN uint32) bool {
	if p.ASN == 0 {
		return p.DynamicASN == ASNInternal
	}
	return p.ASN == localASN
}

// BFD is the single-hop BFD (RFC 5880, 5881) configuration of a peer: when BFD goes
// down the speaker closes the BGP session at once.
type BFD struct {
	Enabled bool
	// MinRx is the shortest interval between received packets we ask for, MinTx the
	// interval we want to send at; DetectMultiplier the packets that may be missed.
	MinRx, MinTx     time.Duration
	DetectMultiplier uint8
}

// Password is a TCP MD5 key. Its String and GoString methods redact it, so a Peer can
// be logged, printed in a test failure or formatted into an error without leaking it.
type Password string

// String implements fmt.Stringer without revealing the key.
func (p Password) String() string {
	if p == "" {
		return ""
	}
	return "<redacted>"
}

// GoString implements fmt.GoStringer (%#v) without revealing the key.
func (p Password) GoString() string { return fmt.Sprintf("bgp.Password(%q)", p.String()) }

// MarshalText implements encoding.TextMarshaler (JSON, slog) without revealing the key.
func (p Password) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// Path is a prefix as one peer is sent it, with the attributes it carries to that peer.
type Path struct {
	Prefix     netip.Prefix
	Attributes PathAttributes
}

// PathAttributes are the attributes kbgp sets on a prefix for one peer. They are per
// peer, not per originated path: two peers may get one prefix with different ones.
type PathAttributes struct {
	// Communities are RFC 1997 communities, well-known ones included, as 32-bit values.
	Communities []uint32
	// LargeCommunities are RFC 8092 communities.
	LargeCommunities []LargeCommunity
	// LocalPreference is sent to iBGP peers; nil leaves it unset.
	LocalPreference *uint32
	// Prepend is prepended to the AS path sent to eBGP peers; Count 0 prepends nothing.
	Prepend ASPathPrepend
	// MED is the MULTI_EXIT_DISC sent; nil leaves it unset.
	MED *uint32
	// LinkBandwidth is the link-bandwidth extended community sent, by which a router
	// weighs this path against the other paths of a multipath route; BytesPerSecond 0
	// sends none.
	LinkBandwidth LinkBandwidth
	// NextHop replaces the session's local address as the next hop. It is set for a
	// family other than the session's own (IPv4 routes over an IPv6 session and the
	// reverse), where the session's address is no next hop a router can use without
	// RFC 8950; invalid leaves the next hop to the speaker.
	NextHop netip.Addr
}

// ASPathPrepend is Count extra copies of ASN at the front of the AS path, on top of
// the local AS every eBGP speaker prepends.
type ASPathPrepend struct {
	ASN   uint32
	Count uint8
}

// LinkBandwidth is the BGP link-bandwidth extended community (non-transitive, type
// 0x40 subtype 0x04): the bandwidth ASN offers for the path, in bytes per second.
type LinkBandwidth struct {
	ASN            uint32
	BytesPerSecond uint32
}

// LargeCommunity is an RFC 8092 large community.
type LargeCommunity struct {
	GlobalAdmin, LocalData1, LocalData2 uint32
}

// ReceivedRoute is a route in one neighbor's Adj-RIB with the attributes on the wire:
// what the lab's upstream routers received, or what a speaker sends or was sent
// (AdjRIBReader).
type ReceivedRoute struct {
	Neighbor   netip.Addr
	Prefix     netip.Prefix
	NextHop    netip.Addr
	ASPath     []uint32
	Attributes PathAttributes
	// Origin is the path's ORIGIN attribute; "" when the router does not report it.
	Origin Origin
}

// Origin is the ORIGIN attribute of a path (RFC 4271): kbgp always sends IGP.
type Origin string

// The ORIGIN values.
const (
	OriginIGP        Origin = "IGP"
	OriginEGP        Origin = "EGP"
	OriginIncomplete Origin = "incomplete"
)
