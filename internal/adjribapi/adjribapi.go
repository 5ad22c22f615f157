// Package adjribapi is the agent's answer to "what does this node send each peer, and
// what does each peer send it": the JSON of the /bgp/routes endpoint, served beside
// /metrics (docs/status.md), and its query. It is plain Go without dependencies, so
// the kubectl plugin reads the answer without linking the agent.
package adjribapi

// Path is where the agent serves the routes, on its metrics listener.
const Path = "/bgp/routes"

// The query parameters.
const (
	// ParamSide is Advertised or Received; required.
	ParamSide = "side"
	// ParamPrefix keeps the routes equal to or inside a prefix (an address is its host
	// prefix).
	ParamPrefix = "prefix"
	// ParamPeer keeps one peer, by name (in every instance and VRF that has it).
	ParamPeer = "peer"
	// ParamLimit bounds the routes of one answer (DefaultLimit; at most MaxLimit).
	ParamLimit = "limit"
	// ParamContinue is the Continue of the previous answer: the next page.
	ParamContinue = "continue"
)

// The sides, the values of ParamSide.
const (
	// Advertised is the Adj-RIB-Out: what the node sends the peer, with the
	// attributes as sent.
	Advertised = "advertised"
	// Received is the Adj-RIB-In: what the peer sent, before import policy.
	Received = "received"
)

// The page sizes.
const (
	DefaultLimit = 500
	MaxLimit     = 10000
)

// Routes is one page of the answer: the peers in order of instance (local ASN, then
// VRF) and name, each with its routes in prefix order. A page ends after Limit routes;
// a peer with no routes (in this page's range) is listed with none.
type Routes struct {
	Node string `json:"node"`
	Side string `json:"side"`
	// Peers are the peers of this page; a peer cut by the page's end appears again,
	// with the rest of its routes, in the next one.
	Peers []Peer `json:"peers"`
	// Continue, when set, asks for the next page (ParamContinue).
	Continue string `json:"continue,omitempty"`
}

// Peer is one peer of one speaker (instance or VRF).
type Peer struct {
	LocalASN uint32 `json:"localASN"`
	// VRF is the peer's VRF; empty: the default one.
	VRF     string `json:"vrf,omitempty"`
	Name    string `json:"name"`
	Address string `json:"address"`
	// State is the session's BGP state (Established, Active, ...) as the speaker
	// reports it: the Adj-RIB-Out is on the wire only while Established.
	State  string  `json:"state,omitempty"`
	Routes []Route `json:"routes"`
	// Error says why the speaker could not list the peer's routes; Routes is empty.
	Error string `json:"error,omitempty"`
}

// Route is one route with the attributes on the wire.
type Route struct {
	Prefix  string `json:"prefix"`
	NextHop string `json:"nextHop,omitempty"`
	// ASPath is the AS path as sent (eBGP: the node's AS prepended) or received.
	ASPath []uint32 `json:"asPath,omitempty"`
	// Communities are RFC 1997 communities as "ASN:value", well-known ones too.
	Communities []string `json:"communities,omitempty"`
	// LargeCommunities are RFC 8092 communities as "global:local1:local2".
	LargeCommunities []string `json:"largeCommunities,omitempty"`
	LocalPreference  *uint32  `json:"localPreference,omitempty"`
	Origin           string   `json:"origin,omitempty"`
	// MED is the MULTI_EXIT_DISC; nil: not sent.
	MED *uint32 `json:"med,omitempty"`
	// LinkBandwidth is the link-bandwidth extended community (weighted ECMP); nil:
	// not sent.
	LinkBandwidth *LinkBandwidth `json:"linkBandwidth,omitempty"`
	// Kernel is, for a received route of a peer of the default VRF, whether it is in
	// the node's kernel; nil on the advertised side, for a VRF peer, and when the agent
	// installs no routes.
	Kernel *Kernel `json:"kernel,omitempty"`
}

// LinkBandwidth is the link-bandwidth extended community: the bandwidth ASN offers
// for the path.
type LinkBandwidth struct {
	ASN            uint32 `json:"asn"`
	BytesPerSecond uint32 `json:"bytesPerSecond"`
}

// Kernel says what became of a received route in the node's kernel.
type Kernel struct {
	// Installed: the route is in the kernel via the peer's next hop.
	Installed bool `json:"installed"`
	// Reason says why not: a refusal (not-in-import-policy, default-route-not-allowed,
	// over-max-routes, foreign-route, the pod-route rules of docs/pod-network.md), a
	// wait (nodes-not-known, not-yet-installed), a route the speaker never passed on
	// (ReasonASPathLoop, not-passed-on), or not-imported (the peer imports nothing of
	// the route's family).
	Reason string `json:"reason,omitempty"`
}

// ReasonASPathLoop: the route's AS path holds the node's own AS; the speaker keeps it
// in the Adj-RIB-In but never uses it (RFC 4271 9.1.2).
const ReasonASPathLoop = "as-path-loop"
