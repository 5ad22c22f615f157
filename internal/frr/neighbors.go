package frr

import (
	"encoding/json"
	"fmt"
)

// MessageStats is "messageStats" of "show bgp neighbors json".
type MessageStats struct {
	DepthInq          int `json:"depthInq"`
	DepthOutq         int `json:"depthOutq"`
	OpensSent         int `json:"opensSent"`
	OpensRecv         int `json:"opensRecv"`
	NotificationsSent int `json:"notificationsSent"`
	NotificationsRecv int `json:"notificationsRecv"`
	UpdatesSent       int `json:"updatesSent"`
	UpdatesRecv       int `json:"updatesRecv"`
	KeepalivesSent    int `json:"keepalivesSent"`
	KeepalivesRecv    int `json:"keepalivesRecv"`
	RouteRefreshSent  int `json:"routeRefreshSent"`
	RouteRefreshRecv  int `json:"routeRefreshRecv"`
	TotalSent         int `json:"totalSent"`
	TotalRecv         int `json:"totalRecv"`
}

// Capabilities is (part of) "neighborCapabilities". Values are FRR's
// strings such as "advertisedAndReceived", "advertised", "received".
type Capabilities struct {
	FourByteAS                 string                     `json:"4byteAs"`
	RouteRefresh               string                     `json:"routeRefresh"`
	EnhancedRouteRefresh       string                     `json:"enhancedRouteRefresh"`
	ExtendedMessage            string                     `json:"extendedMessage"`
	GracefulRestart            string                     `json:"gracefulRestart"`
	GracefulRestartRemoteMsecs int                        `json:"gracefulRestartRemoteTimerMsecs"`
	LongLivedGracefulRestart   string                     `json:"longLivedGracefulRestart"`
	ExtendedNexthop            string                     `json:"extendedNexthop"`
	MultiprotocolExtensions    map[string]map[string]bool `json:"multiprotocolExtensions"`
}

// GracefulRestartInfo is "gracefulRestartInfo" of "show bgp neighbors
// json".
type GracefulRestartInfo struct {
	EndOfRibSend map[string]bool `json:"endOfRibSend"`
	EndOfRibRecv map[string]bool `json:"endOfRibRecv"`
	LocalGrMode  string          `json:"localGrMode"`
	RemoteGrMode string          `json:"remoteGrMode"`
	RBit         bool            `json:"rBit"`
	NBit         bool            `json:"nBit"`
	Timers       struct {
		ConfiguredRestartTimer int `json:"configuredRestartTimer"`
		ReceivedRestartTimer   int `json:"receivedRestartTimer"`
	} `json:"timers"`
}

// AddressFamilyInfo is one entry of "addressFamilyInfo".
type AddressFamilyInfo struct {
	AcceptedPrefixCounter int `json:"acceptedPrefixCounter"`
	SentPrefixCounter     int `json:"sentPrefixCounter"`
}

// Neighbor is one neighbor of "show bgp neighbors ADDR json" (FRR 8.4
// key names in the struct tags).
type Neighbor struct {
	// Address is the neighbor address (the JSON object key).
	Address        string `json:"-"`
	RemoteAS       uint32 `json:"remoteAs"`
	LocalAS        uint32 `json:"localAs"`
	State          string `json:"bgpState"`
	RemoteRouterID string `json:"remoteRouterId"`
	LocalRouterID  string `json:"localRouterId"`
	// UpMsec is the time since the session came up (only when
	// Established).
	UpMsec int64 `json:"bgpTimerUpMsec"`
	// HoldTimeMsecs and KeepaliveMsecs are the negotiated timers.
	HoldTimeMsecs            int `json:"bgpTimerHoldTimeMsecs"`
	KeepaliveMsecs           int `json:"bgpTimerKeepAliveIntervalMsecs"`
	ConfiguredHoldTimeMsecs  int `json:"bgpTimerConfiguredHoldTimeMsecs"`
	ConfiguredKeepaliveMsecs int `json:"bgpTimerConfiguredKeepAliveIntervalMsecs"`

	ConnectionsEstablished int `json:"connectionsEstablished"`
	ConnectionsDropped     int `json:"connectionsDropped"`
	// LastResetDueTo is FRR's text for the last reset, e.g. "BGP
	// Notification received" or "No AFI/SAFI activated for peer" (the
	// latter is what FRR 8.4 shows before the first reset, and was seen
	// again once a reset session was Established anew: it names no
	// reason; bgpd's log and LastNotificationReason right after the
	// reset do).
	LastResetDueTo   string `json:"lastResetDueTo"`
	LastResetCode    int    `json:"lastResetCode"`
	LastResetTimerMs int64  `json:"lastResetTimerMsecs"`
	// LastNotificationReason is set after a NOTIFICATION was sent or
	// received, e.g. "Cease/Administrative Shutdown".
	LastNotificationReason string `json:"lastNotificationReason"`
	// LastErrorCodeSubcode is the hex code+subcode of the last
	// NOTIFICATION, e.g. "0602".
	LastErrorCodeSubcode string `json:"lastErrorCodeSubcode"`
	// LastShutdownDescription is the RFC 8203 shutdown message, if any.
	LastShutdownDescription string `json:"lastShutdownDescription"`

	MessageStats        MessageStats                 `json:"messageStats"`
	Capabilities        Capabilities                 `json:"neighborCapabilities"`
	GracefulRestartInfo *GracefulRestartInfo         `json:"gracefulRestartInfo"`
	AddressFamilyInfo   map[string]AddressFamilyInfo `json:"addressFamilyInfo"`

	HostLocal   string `json:"hostLocal"`
	PortLocal   int    `json:"portLocal"`
	HostForeign string `json:"hostForeign"`
	PortForeign int    `json:"portForeign"`

	// Raw is the neighbor's complete JSON object.
	Raw json.RawMessage `json:"-"`
}

// Neighbors returns every neighbor from "show bgp neighbors json", by address.
func (v VTY) Neighbors() (map[string]Neighbor, error) {
	return v.neighbors("show bgp neighbors json")
}

// Neighbor returns one neighbor from "show bgp neighbors ADDR json".
func (v VTY) Neighbor(addr string) (Neighbor, error) {
	m, err := v.neighbors("show bgp neighbors " + addr + " json")
	if err != nil {
		return Neighbor{}, err
	}
	for k, n := range m {
		if k == addr || len(m) == 1 {
			return n, nil
		}
	}
	return Neighbor{}, fmt.Errorf("neighbor %s not in the output", addr)
}

func (v VTY) neighbors(cmd string) (map[string]Neighbor, error) {
	var raw map[string]json.RawMessage
	if err := v.JSON(cmd, &raw); err != nil {
		return nil, err
	}
	return DecodeNeighbors(raw)
}

// DecodeNeighbors decodes the neighbors of "show bgp neighbors [ADDR] json".
func DecodeNeighbors(raw map[string]json.RawMessage) (map[string]Neighbor, error) {
	if _, ok := raw["bgpNoSuchNeighbor"]; ok {
		return nil, fmt.Errorf("no such neighbor")
	}
	m := make(map[string]Neighbor, len(raw))
	for k, v := range raw {
		if len(v) == 0 || v[0] != '{' {
			continue
		}
		var n Neighbor
		if err := json.Unmarshal(v, &n); err != nil {
			return nil, fmt.Errorf("decoding neighbor %s: %w", k, err)
		}
		n.Address = k
		n.Raw = v
		m[k] = n
	}
	return m, nil
}
