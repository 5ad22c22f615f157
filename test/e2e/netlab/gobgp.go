package netlab

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// GoBGPAPIPort is the gRPC port gobgpd listens on, on the namespace's own
// loopback (each namespace has its own, so one port fits all).
const GoBGPAPIPort = 50051

// GoBGPD is a running gobgpd inside a namespace.
type GoBGPD struct {
	ns       *Namespace
	dir      string
	confPath string
	// Proc is the gobgpd process.
	Proc *Process
}

// StartGoBGP writes tomlConfig (a complete gobgpd TOML configuration) and
// starts gobgpd in ns with its API on 127.0.0.1:GoBGPAPIPort inside the
// namespace, plain-text logging to stdout (see Proc.Log) and pprof disabled,
// then waits until "gobgp global" answers.
func StartGoBGP(ns *Namespace, tomlConfig string) *GoBGPD {
	t := ns.lab.t
	t.Helper()
	for _, bin := range []string{"gobgpd", "gobgp"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Fatalf("netlab: StartGoBGP: %s not found: %v", bin, err)
		}
	}
	dir := ns.subdir("gobgp")
	g := &GoBGPD{ns: ns, dir: dir, confPath: filepath.Join(dir, "gobgpd.toml")}
	if err := os.WriteFile(g.confPath, []byte(tomlConfig), 0o644); err != nil {
		t.Fatalf("netlab: %v", err)
	}
	g.Proc = ns.Start("gobgpd", "gobgpd", "-f", g.confPath, "-t", "toml", "-p", "-l", "debug",
		"--api-hosts=127.0.0.1:"+strconv.Itoa(GoBGPAPIPort), "--pprof-disable")
	ns.lab.AddDiagnostic(ns.Name+" gobgpd", g.diagnostics)
	WaitFor(t, 20*time.Second, 100*time.Millisecond, func() (bool, string) {
		if g.Proc.Exited() {
			t.Fatalf("netlab: gobgpd in %s exited during startup (%v):\n%s", ns.Name, g.Proc.Err(), g.Proc.Log())
		}
		out, err := g.Gobgp("global", "-j")
		if err != nil {
			return false, fmt.Sprintf("gobgp: %v: %s", err, out)
		}
		return strings.Contains(out, "{"), "gobgp global: " + out
	})
	return g
}

// Namespace returns the namespace gobgpd runs in.
func (g *GoBGPD) Namespace() *Namespace { return g.ns }

// ConfigPath returns the path of the TOML configuration.
func (g *GoBGPD) ConfigPath() string { return g.confPath }

// Gobgp runs the gobgp CLI inside the namespace against this gobgpd.
func (g *GoBGPD) Gobgp(args ...string) (string, error) {
	full := append([]string{"gobgp", "-u", "127.0.0.1", "-p", strconv.Itoa(GoBGPAPIPort)}, args...)
	return g.ns.Exec(full...)
}

func (g *GoBGPD) diagnostics() string {
	var b strings.Builder
	for _, a := range [][]string{{"neighbor"}, {"global", "rib", "-a", "ipv4"}, {"global", "rib", "-a", "ipv6"}} {
		out, err := g.Gobgp(a...)
		fmt.Fprintf(&b, "# gobgp %s\n%s", strings.Join(a, " "), out)
		if err != nil {
			fmt.Fprintf(&b, "(error: %v)\n", err)
		}
	}
	return b.String()
}

// GoBGPNeighbor is one neighbor of "gobgp neighbor -j".
type GoBGPNeighbor struct {
	Address string
	PeerASN uint32
	// State is the session state in upper case without prefix: "IDLE",
	// "CONNECT", "ACTIVE", "OPENSENT", "OPENCONFIRM", "ESTABLISHED" (or
	// "UNKNOWN").
	State string
	// NegotiatedHoldTime and KeepaliveInterval are in seconds.
	NegotiatedHoldTime int
	KeepaliveInterval  int
	// NotificationsSent/Received count NOTIFICATION messages.
	NotificationsSent     int
	NotificationsReceived int
	// Raw is the neighbor's complete JSON object.
	Raw json.RawMessage
}

type gobgpMsgCounters struct {
	Notification int `json:"notification"`
}

type gobgpNeighborJSON struct {
	Conf struct {
		NeighborAddress string `json:"neighbor_address"`
		PeerASN         uint32 `json:"peer_asn"`
	} `json:"conf"`
	State struct {
		NeighborAddress string          `json:"neighbor_address"`
		SessionState    json.RawMessage `json:"session_state"`
		Messages        struct {
			Received gobgpMsgCounters `json:"received"`
			Sent     gobgpMsgCounters `json:"sent"`
		} `json:"messages"`
	} `json:"state"`
	Timers struct {
		State struct {
			KeepaliveInterval  int `json:"keepalive_interval"`
			NegotiatedHoldTime int `json:"negotiated_hold_time"`
		} `json:"state"`
	} `json:"timers"`
}

var gobgpStates = []string{"UNKNOWN", "IDLE", "CONNECT", "ACTIVE", "OPENSENT", "OPENCONFIRM", "ESTABLISHED"}

func gobgpState(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "UNKNOWN"
	}
	var n int
	if json.Unmarshal(raw, &n) == nil {
		if n >= 0 && n < len(gobgpStates) {
			return gobgpStates[n]
		}
		return "UNKNOWN"
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		s = strings.ToUpper(s)
		s = strings.TrimPrefix(s, "SESSION_STATE_")
		s = strings.TrimPrefix(s, "BGP_FSM_")
		return s
	}
	return "UNKNOWN"
}

// Neighbors returns "gobgp neighbor -j" keyed by neighbor address.
func (g *GoBGPD) Neighbors() (map[string]GoBGPNeighbor, error) {
	out, err := g.Gobgp("neighbor", "-j")
	if err != nil {
		return nil, fmt.Errorf("%v: %s", err, out)
	}
	var raws []json.RawMessage
	if err := json.Unmarshal([]byte(out), &raws); err != nil {
		return nil, fmt.Errorf("gobgp neighbor -j: %v: %s", err, truncate(out, 2000))
	}
	m := make(map[string]GoBGPNeighbor, len(raws))
	for _, r := range raws {
		var j gobgpNeighborJSON
		if err := json.Unmarshal(r, &j); err != nil {
			return nil, fmt.Errorf("gobgp neighbor -j: %v", err)
		}
		addr := j.State.NeighborAddress
		if addr == "" {
			addr = j.Conf.NeighborAddress
		}
		m[addr] = GoBGPNeighbor{
			Address:               addr,
			PeerASN:               j.Conf.PeerASN,
			State:                 gobgpState(j.State.SessionState),
			NegotiatedHoldTime:    j.Timers.State.NegotiatedHoldTime,
			KeepaliveInterval:     j.Timers.State.KeepaliveInterval,
			NotificationsSent:     j.State.Messages.Sent.Notification,
			NotificationsReceived: j.State.Messages.Received.Notification,
			Raw:                   r,
		}
	}
	return m, nil
}

// WaitEstablished waits until the session with neighbor addr is
// ESTABLISHED.
func (g *GoBGPD) WaitEstablished(t TB, addr string, timeout time.Duration) GoBGPNeighbor {
	t.Helper()
	return g.WaitNeighborState(t, addr, "ESTABLISHED", timeout)
}

// WaitNeighborState waits until neighbor addr is in state (see
// GoBGPNeighbor.State).
func (g *GoBGPD) WaitNeighborState(t TB, addr, state string, timeout time.Duration) GoBGPNeighbor {
	t.Helper()
	var last GoBGPNeighbor
	WaitFor(t, timeout, 200*time.Millisecond, func() (bool, string) {
		m, err := g.Neighbors()
		if err != nil {
			return false, err.Error()
		}
		n, ok := m[addr]
		if !ok {
			return false, fmt.Sprintf("gobgpd %s: no neighbor %s (have %v)", g.ns.Name, addr, sortedKeys(m))
		}
		last = n
		return n.State == state, fmt.Sprintf("gobgpd %s neighbor %s: state %s, want %s", g.ns.Name, addr, n.State, state)
	})
	return last
}

// GoBGPPath is one path of "gobgp global rib -a FAMILY -j".
type GoBGPPath struct {
	Prefix           string
	Best             bool
	Stale            bool
	Nexthop          string
	ASPath           []uint32
	LocalPref        *uint32
	MED              *uint32
	Communities      []string
	LargeCommunities []string
	// NeighborIP is the neighbor the path came from; SourceID its router
	// ID.
	NeighborIP string
	SourceID   string
}

// HasCommunity reports whether the path carries community c ("65000:1").
func (p GoBGPPath) HasCommunity(c string) bool { return slices.Contains(p.Communities, c) }

type gobgpPathJSON struct {
	Best       bool              `json:"best"`
	Stale      bool              `json:"stale"`
	NeighborIP string            `json:"neighbor-ip"`
	SourceID   string            `json:"source-id"`
	Attrs      []json.RawMessage `json:"attrs"`
}

type gobgpAttrJSON struct {
	Type    int    `json:"type"`
	Nexthop string `json:"nexthop"`
	ASPaths []struct {
		ASNs []uint32 `json:"asns"`
	} `json:"as_paths"`
	Communities []uint32        `json:"communities"`
	Value       json.RawMessage `json:"value"`
}

// Routes returns "gobgp global rib -a FAMILY -j" (family "ipv4", "ipv6",
// ...) keyed by prefix; each value lists the paths, best first when gobgp
// marks one.
func (g *GoBGPD) Routes(family string) (map[string][]GoBGPPath, error) {
	out, err := g.Gobgp("global", "rib", "-a", family, "-j")
	if err != nil {
		return nil, fmt.Errorf("%v: %s", err, out)
	}
	out = strings.TrimSpace(out)
	res := map[string][]GoBGPPath{}
	if out == "" || out == "null" {
		return res, nil
	}
	var raw map[string][]gobgpPathJSON
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		return nil, fmt.Errorf("gobgp global rib -j: %v: %s", err, truncate(out, 2000))
	}
	for prefix, paths := range raw {
		for _, pj := range paths {
			p := GoBGPPath{Prefix: prefix, Best: pj.Best, Stale: pj.Stale, NeighborIP: pj.NeighborIP, SourceID: pj.SourceID}
			for _, a := range pj.Attrs {
				var aj gobgpAttrJSON
				if err := json.Unmarshal(a, &aj); err != nil {
					continue
				}
				switch aj.Type {
				case 2: // AS_PATH
					for _, seg := range aj.ASPaths {
						p.ASPath = append(p.ASPath, seg.ASNs...)
					}
				case 3, 14: // NEXT_HOP, MP_REACH_NLRI
					if aj.Nexthop != "" && p.Nexthop == "" {
						p.Nexthop = aj.Nexthop
					}
				case 4: // MED
					var v uint32
					if json.Unmarshal(aj.Value, &v) == nil {
						p.MED = &v
					}
				case 5: // LOCAL_PREF
					var v uint32
					if json.Unmarshal(aj.Value, &v) == nil {
						p.LocalPref = &v
					}
				case 8: // COMMUNITIES
					for _, c := range aj.Communities {
						p.Communities = append(p.Communities, fmt.Sprintf("%d:%d", c>>16, c&0xffff))
					}
				case 32: // LARGE_COMMUNITY
					var lcs []struct {
						ASN        uint32 `json:"ASN"`
						LocalData1 uint32 `json:"LocalData1"`
						LocalData2 uint32 `json:"LocalData2"`
					}
					if json.Unmarshal(aj.Value, &lcs) == nil {
						for _, lc := range lcs {
							p.LargeCommunities = append(p.LargeCommunities, fmt.Sprintf("%d:%d:%d", lc.ASN, lc.LocalData1, lc.LocalData2))
						}
					}
				}
			}
			if p.Best {
				res[prefix] = append([]GoBGPPath{p}, res[prefix]...)
			} else {
				res[prefix] = append(res[prefix], p)
			}
		}
	}
	return res, nil
}

// AddRoute announces prefix from gobgpd's global RIB: "gobgp global rib
// add -a FAMILY PREFIX ARGS..." where args are gobgp CLI attributes, e.g.
// "nexthop", "10.0.0.1", "community", "65000:1", "local-pref", "200".
func (g *GoBGPD) AddRoute(family, prefix string, args ...string) error {
	out, err := g.Gobgp(append([]string{"global", "rib", "add", "-a", family, prefix}, args...)...)
	if err != nil {
		return fmt.Errorf("%v: %s", err, out)
	}
	return nil
}

// DelRoute withdraws prefix from gobgpd's global RIB.
func (g *GoBGPD) DelRoute(family, prefix string) error {
	out, err := g.Gobgp("global", "rib", "del", "-a", family, prefix)
	if err != nil {
		return fmt.Errorf("%v: %s", err, out)
	}
	return nil
}

// Stop stops gobgpd (SIGTERM, then SIGKILL).
func (g *GoBGPD) Stop() error { return g.Proc.Stop() }
