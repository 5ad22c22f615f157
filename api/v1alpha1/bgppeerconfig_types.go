package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// BGPPeerConfigSpec is a reusable set of session settings that peers reference by
// name, so a timer change is one write instead of one per peer or node.
type BGPPeerConfigSpec struct {
	// Transport holds the TCP ports of the session.
	// +optional
	Transport *BGPTransport `json:"transport,omitempty"`

	// Timers holds the BGP timers offered to the peer.
	// +optional
	Timers *BGPTimers `json:"timers,omitempty"`

	// GracefulRestart, when enabled, is negotiated for the families listed in Families
	// only. Nil or disabled: no graceful-restart capability.
	// +optional
	GracefulRestart *BGPGracefulRestart `json:"gracefulRestart,omitempty"`

	// GracefulShutdown, when enabled, re-announces every path the peer is sent with the
	// GRACEFUL_SHUTDOWN community (RFC 8326), and local preference 0 to an iBGP peer,
	// while the node is cordoned (spec.unschedulable): the router moves traffic to the
	// other nodes before this one goes, with the sessions up. Uncordon undoes it.
	// Changing it resets no session.
	// +optional
	GracefulShutdown *BGPGracefulShutdown `json:"gracefulShutdown,omitempty"`

	// EBGPMultihop is the TTL of packets to an eBGP peer; 1 means directly connected.
	// Ignored for iBGP.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=255
	EBGPMultihop *int32 `json:"ebgpMultihop,omitempty"`

	// AuthSecretRef names a Secret in the agent's namespace whose key "password" is the
	// TCP MD5 password. A missing Secret or key means the session is not started.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')",message="authSecretRef must be a Secret name (DNS subdomain)"
	AuthSecretRef *string `json:"authSecretRef,omitempty"`

	// Families are the address families negotiated with the peer and, per family, the
	// BGPAdvertisements to send. Default: ipv4/unicast and ipv6/unicast advertising
	// nothing.
	// +optional
	// +listType=map
	// +listMapKey=afi
	// +listMapKey=safi
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=2
	// +kubebuilder:default={{afi: ipv4, safi: unicast}, {afi: ipv6, safi: unicast}}
	Families []BGPFamily `json:"families,omitempty"`

	// BFD runs Bidirectional Forwarding Detection (RFC 5880, single hop RFC 5881) beside
	// the session: when BFD goes down the session is closed at once instead of after
	// the hold time. Turning it on or off or changing its timers never resets the
	// session.
	// +optional
	BFD *BGPBFD `json:"bfd,omitempty"`
}

// BGPBFD configures BFD for a session. The intervals are what kbgp offers; the
// detection time is the peer's multiplier times the slower of the two ends' intervals.
type BGPBFD struct {
	// Enabled turns BFD on.
	Enabled bool `json:"enabled"`

	// MinRxMilliseconds is the shortest interval between BFD packets kbgp wants to receive.
	// +optional
	// +kubebuilder:default=300
	// +kubebuilder:validation:Minimum=10
	// +kubebuilder:validation:Maximum=60000
	MinRxMilliseconds *int32 `json:"minRxMilliseconds,omitempty"`

	// MinTxMilliseconds is the interval at which kbgp wants to send BFD packets.
	// +optional
	// +kubebuilder:default=300
	// +kubebuilder:validation:Minimum=10
	// +kubebuilder:validation:Maximum=60000
	MinTxMilliseconds *int32 `json:"minTxMilliseconds,omitempty"`

	// DetectMultiplier is how many packets may be missed before BFD goes down.
	// +optional
	// +kubebuilder:default=3
	// +kubebuilder:validation:Minimum=2
	// +kubebuilder:validation:Maximum=255
	DetectMultiplier *int32 `json:"detectMultiplier,omitempty"`
}

// BGPGracefulShutdown is RFC 8326 graceful shutdown while the node is drained.
type BGPGracefulShutdown struct {
	// Enabled turns it on for the peers of this peer config.
	Enabled bool `json:"enabled"`

	// WaitSeconds is how long the graceful-shutdown paths must have been out before an
	// agent stopped on the cordoned node (SIGTERM) closes its sessions: a stop that
	// comes sooner waits for the rest, so the routers have moved the traffic first. Keep
	// the agent's terminationGracePeriodSeconds above it.
	// +optional
	// +kubebuilder:default=30
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=600
	WaitSeconds *int32 `json:"waitSeconds,omitempty"`
}

// BGPTransport holds the TCP ports of a session.
type BGPTransport struct {
	// PeerPort is the neighbour's TCP port.
	// +optional
	// +kubebuilder:default=179
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	PeerPort *int32 `json:"peerPort,omitempty"`

	// LocalPort is the source port of outgoing connections; 0 or unset lets the kernel
	// choose.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=65535
	LocalPort *int32 `json:"localPort,omitempty"`
}

// BGPTimers are the BGP timers of RFC 4271.
//
// +kubebuilder:validation:XValidation:rule="!has(self.keepAliveTimeSeconds) || !has(self.holdTimeSeconds) || self.keepAliveTimeSeconds <= self.holdTimeSeconds",message="timers.keepAliveTimeSeconds must be less than or equal to timers.holdTimeSeconds"
type BGPTimers struct {
	// ConnectRetryTimeSeconds is the ConnectRetry timer (RFC 4271 section 8).
	// +optional
	// +kubebuilder:default=120
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=2147483647
	ConnectRetryTimeSeconds *int32 `json:"connectRetryTimeSeconds,omitempty"`

	// HoldTimeSeconds is the hold time offered in OPEN (RFC 4271 section 4.2).
	// +optional
	// +kubebuilder:default=90
	// +kubebuilder:validation:Minimum=3
	// +kubebuilder:validation:Maximum=65535
	HoldTimeSeconds *int32 `json:"holdTimeSeconds,omitempty"`

	// KeepAliveTimeSeconds is the keepalive interval; at most HoldTimeSeconds.
	// +optional
	// +kubebuilder:default=30
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	KeepAliveTimeSeconds *int32 `json:"keepAliveTimeSeconds,omitempty"`
}

// BGPGracefulRestart configures the graceful restart capability (RFC 4724).
// +kubebuilder:validation:XValidation:rule="!has(self.longLivedStaleTimeSeconds) || self.enabled",message="longLivedStaleTimeSeconds needs graceful restart enabled"
type BGPGracefulRestart struct {
	// Enabled turns graceful restart on.
	Enabled bool `json:"enabled"`

	// RestartTimeSeconds is the restart time advertised to the peer.
	// +optional
	// +kubebuilder:default=120
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=4095
	RestartTimeSeconds *int32 `json:"restartTimeSeconds,omitempty"`

	// LongLivedStaleTimeSeconds turns on long-lived graceful restart (RFC 9494) for the
	// peer's families: once the restart time has run out, a peer that supports it keeps
	// the node's routes for this much longer, marked LLGR_STALE and used only when no
	// other path is left, instead of dropping them. It covers outages longer than a
	// graceful restart should be (a node down for maintenance, every agent of a rack
	// restarting). Routes the node receives are kept the same way when the peer
	// advertises it, except those that carry NO_LLGR (65535:7). Unset: off.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=16777215
	LongLivedStaleTimeSeconds *int32 `json:"longLivedStaleTimeSeconds,omitempty"`
}

// AFI is a BGP address family identifier.
// +kubebuilder:validation:Enum=ipv4;ipv6
type AFI string

// SAFI is a BGP subsequent address family identifier.
// +kubebuilder:validation:Enum=unicast
type SAFI string

// Address families kbgp negotiates.
const (
	AFIIPv4     AFI  = "ipv4"
	AFIIPv6     AFI  = "ipv6"
	SAFIUnicast SAFI = "unicast"
)

// BGPFamily is one AFI/SAFI negotiated with a peer and the advertisements sent in it.
// +kubebuilder:validation:XValidation:rule="!has(self.__import__) || !has(self.__import__.prefixes) || self.__import__.prefixes.all(p, p.prefix.contains(':') == (self.afi == 'ipv6'))",message="import.prefixes must be of the family's address family"
type BGPFamily struct {
	// AFI is ipv4 or ipv6.
	AFI AFI `json:"afi"`

	// SAFI is unicast.
	SAFI SAFI `json:"safi"`

	// Advertisements selects BGPAdvertisements by label. Nil advertises nothing in
	// this family; an empty selector selects every BGPAdvertisement.
	// +optional
	Advertisements *LabelSelector `json:"advertisements,omitempty"`

	// MaxPrefixes caps the routes the peer may send in this family (kbgp imports none,
	// but each is held in memory). Past the cap the session is closed (Cease, maximum
	// number of prefixes reached) and held down, with reason MaxPrefixExceeded in the
	// node's status, until the limit is raised or a retry finds the peer within it.
	// Unset: 100000 (DefaultMaxPrefixes), which a peer sending a full table or a route
	// reflector of a larger cluster must raise.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=4294967295
	MaxPrefixes *int64 `json:"maxPrefixes,omitempty"`

	// ImportPodRoutes installs the routes this peer sends in this family into the
	// node's kernel, when kbgp is the node's pod network (agent --pod-network): only
	// routes inside the cluster's pod ranges that do not overlap the node's own pod
	// CIDRs, under kbgp's own route protocol; everything else received is ignored and
	// counted. Off: nothing received is ever installed.
	// +optional
	ImportPodRoutes bool `json:"importPodRoutes,omitempty"`

	// AddPaths offers the peer several paths per prefix in this family (ADD-PATH,
	// RFC 7911) instead of only the best one (docs/advertisements.md). A capability in
	// OPEN: changing it resets the sessions of the peers that use this peer config.
	// +optional
	AddPaths *BGPAddPaths `json:"addPaths,omitempty"`

	// Import installs the routes this peer sends in this family that the policy
	// accepts into the node's main routing table, under kbgp's own route protocol
	// (with or without the pod network): the fabric's default route and prefixes, for
	// a node routed on its uplinks (docs/routing-on-the-host.md). A prefix several
	// peers send becomes one multipath (ECMP) route over all their next hops; an IPv4
	// route from a peer with an IPv6 next hop (RFC 8950, interface peers) goes via that
	// next hop on the peer's interface. A route kbgp did not install is never
	// replaced, a next hop that is the node's own is never used. Unset: nothing this
	// peer sends is installed (but pod routes, importPodRoutes).
	// +optional
	Import *RouteImport `json:"import,omitempty"`
}

// RouteImport is which received routes of one peer and family go into the kernel.
// +kubebuilder:validation:XValidation:rule="(has(self.prefixes) && size(self.prefixes) > 0) || (has(self.allowDefaultRoute) && self.allowDefaultRoute)",message="import accepts nothing: list prefixes or set allowDefaultRoute"
type RouteImport struct {
	// Prefixes accept a route whose prefix one of them matches (as a prefix list of
	// FRR or Junos: inside prefix, and of a length within ge..le). Empty: only the
	// default route, with allowDefaultRoute.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	Prefixes []ImportPrefix `json:"prefixes,omitempty"`

	// AllowDefaultRoute accepts the default route (0.0.0.0/0, ::/0). Without it the
	// default route is refused whatever prefixes match it, so a broad list such as
	// 10.0.0.0/8 le 32 never steers all of the node's traffic.
	// +optional
	AllowDefaultRoute bool `json:"allowDefaultRoute,omitempty"`

	// MaxRoutes caps the routes installed from this peer in this family. Past it the
	// accepted prefixes are ordered (address, then length) and only the first
	// maxRoutes are installed: the same set whatever the order they arrived in; the
	// others are counted as rejected (over-max-routes) in the peer's status. The
	// session stays up (maxPrefixes is what closes it). Unset: 1000
	// (DefaultImportMaxRoutes).
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000000
	MaxRoutes *int32 `json:"maxRoutes,omitempty"`
}

// DefaultImportMaxRoutes is RouteImport.MaxRoutes when unset: a fabric's default
// route and its aggregates, far below a full table.
const DefaultImportMaxRoutes = 1000

// ImportPrefix matches received prefixes: those inside Prefix whose length is within
// ge..le. Neither set: Prefix exactly. Only ge: ge up to the address length. Only le:
// Prefix's length up to le.
// +kubebuilder:validation:XValidation:rule="!has(self.ge) || !isCIDR(self.prefix) || self.ge >= cidr(self.prefix).prefixLength()",message="ge must be at least the prefix's length"
// +kubebuilder:validation:XValidation:rule="!has(self.le) || !isCIDR(self.prefix) || self.le >= cidr(self.prefix).prefixLength()",message="le must be at least the prefix's length"
// +kubebuilder:validation:XValidation:rule="!has(self.ge) || !has(self.le) || self.ge <= self.le",message="ge must be less than or equal to le"
// +kubebuilder:validation:XValidation:rule="!isCIDR(self.prefix) || ((!has(self.ge) || self.ge <= (cidr(self.prefix).ip().family() == 4 ? 32 : 128)) && (!has(self.le) || self.le <= (cidr(self.prefix).ip().family() == 4 ? 32 : 128)))",message="ge and le must be at most the address length (32 for IPv4, 128 for IPv6)"
type ImportPrefix struct {
	// Prefix is a CIDR of the family, without host bits, such as 10.0.0.0/8.
	Prefix CIDR `json:"prefix"`

	// GE is the shortest prefix length matched.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=128
	GE *int32 `json:"ge,omitempty"`

	// LE is the longest prefix length matched.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=128
	LE *int32 `json:"le,omitempty"`
}

// DefaultMaxPrefixes is MaxPrefixes when unset: kbgp imports none of these routes
// (pod routes aside), and at about 1 KiB each a peer's unbounded table would take the
// agent's memory; 100000 is the Service prefixes of the largest cluster kbgp is
// measured at (docs/configuration.md).
const DefaultMaxPrefixes = 100000

// BGPPeerConfig is a reusable peer configuration referenced from cluster configs.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,shortName=bgppc,categories=kbgp
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type BGPPeerConfig struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec BGPPeerConfigSpec `json:"spec,omitempty"`
}

// BGPPeerConfigList is a list of BGPPeerConfig.
//
// +kubebuilder:object:root=true
type BGPPeerConfigList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []BGPPeerConfig `json:"items"`
}
