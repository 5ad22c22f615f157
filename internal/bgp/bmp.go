package bgp

import (
	"net/netip"
	"time"
)

// BMPCollector is a BMP station (RFC 7854) a speaker streams its sessions and routes
// to. It is not part of Global: a speaker adds and drops collectors while its sessions
// run.
type BMPCollector struct {
	Address netip.Addr
	Port    uint16
	// Monitoring says which routes Route Monitoring messages carry.
	Monitoring BMPMonitoring
	// StatisticsInterval is how often Statistics Reports are sent; zero: never.
	StatisticsInterval time.Duration
}

// BMPMonitoring names the RIBs a speaker reports in Route Monitoring messages.
type BMPMonitoring string

// The RIBs: the routes received before or after import policy (RFC 7854), the
// speaker's Loc-RIB (RFC 9069: its best paths, those it originates included), or all
// three.
const (
	BMPPrePolicy  BMPMonitoring = "pre-policy"
	BMPPostPolicy BMPMonitoring = "post-policy"
	BMPLocalRIB   BMPMonitoring = "local-rib"
	BMPAll        BMPMonitoring = "all"
)

// BMPStatus is the state of a speaker's connection to one collector.
type BMPStatus struct {
	Address netip.Addr
	Port    uint16
	Up      bool
	// Since is when the connection last came up (Up) or went down; zero if never.
	Since time.Time
}
