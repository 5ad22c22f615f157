package kubectlbgp

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// peerRow is one session as reported in a BGPNodeConfig's status. It keeps the raw sort
// keys (ASN as a number, so 9 sorts before 10) next to the rendered cells.
type peerRow struct {
	node  string
	asn   int64
	vrf   string
	name  string
	cells []string
}

// peersHeader is the header of `kubectl bgp peers`; wide adds what is useful when
// debugging a session but too long for a quick look.
func peersHeader(wide bool) []string {
	h := []string{"NODE", "ASN", "PEER", "ADDRESS", "VRF", "STATE", "SINCE", "RECEIVED", "ADVERTISED"}
	if wide {
		h = append(h, "PEER-ASN", "HOLD/KEEPALIVE", "BFD", "INSTALLED/REJECTED", "ADD-PATH")
	}
	return h
}

// peerRows turns the status of every node config into one row per session, sorted by
// node, local ASN, VRF and peer name: the status lists are in the agent's order, which a
// reader comparing two runs should not have to care about.
func peerRows(ncs []kbgpv1.BGPNodeConfig, now time.Time, wide bool) [][]string {
	var rows []peerRow
	for _, nc := range ncs {
		for _, inst := range nc.Status.BGPInstances {
			for _, p := range inst.Peers {
				rows = append(rows, peerRow{
					node: nc.Name, asn: inst.LocalASN, vrf: p.VRF, name: p.Name,
					cells: peerCells(nc.Name, inst.LocalASN, p, now, wide),
				})
			}
		}
	}
	slices.SortStableFunc(rows, func(a, b peerRow) int {
		return cmp.Or(cmp.Compare(a.node, b.node), cmp.Compare(a.asn, b.asn),
			cmp.Compare(a.vrf, b.vrf), cmp.Compare(a.name, b.name))
	})
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = r.cells
	}
	return out
}

func peerCells(node string, asn int64, p kbgpv1.BGPNodePeerStatus, now time.Time, wide bool) []string {
	c := []string{
		cell(node),
		strconv.FormatInt(asn, 10),
		cell(p.Name) + meshMarker(p.MeshRole),
		cell(peerWhere(p)),
		orDash(cell(p.VRF)),
		orDash(cell(peerState(p))),
		since(p.EstablishedTime, now),
		strconv.FormatInt(p.RoutesReceived, 10),
		strconv.FormatInt(p.RoutesAdvertised, 10),
	}
	if wide {
		// BFD is "-" for a peer whose config does not enable it, INSTALLED/REJECTED for
		// one that imports nothing, ADD-PATH for one that sends no family several paths.
		c = append(c, peerASN(p.PeerASN, p.DynamicASN), timers(p.Timers), orDash(string(p.BFDState)),
			imported(p.RoutesInstalled, p.RoutesRejected), orDash(addPaths(p.AddPaths)))
	}
	return c
}

// imported is "installed/rejected": the routes the peer sent that are in the node's
// kernel and those refused; "-" when it imports nothing.
func imported(installed, rejected *int64) string {
	if installed == nil && rejected == nil {
		return "-"
	}
	count := func(n *int64) int64 {
		if n == nil {
			return 0
		}
		return *n
	}
	return fmt.Sprintf("%d/%d", count(installed), count(rejected))
}

// addPaths is, per family configured with ADD-PATH send, whether the peer agreed:
// "ipv4:Negotiated,ipv6:NotNegotiated" (the SAFI is named when not unicast).
func addPaths(fams []kbgpv1.BGPAddPathsStatus) string {
	out := make([]string, len(fams))
	for i, f := range fams {
		fam := string(f.AFI)
		if f.SAFI != kbgpv1.SAFIUnicast {
			fam += "/" + string(f.SAFI)
		}
		out[i] = cell(fam + ":" + string(f.Send))
	}
	return strings.Join(out, ",")
}

// peerASN is a peer's ASN, or for a dynamicASN peer its kind, with the ASN its
// session learned when there is one: "external", "external (65010)".
func peerASN(asn int64, dynamic kbgpv1.DynamicASN) string {
	switch {
	case dynamic == "":
		return strconv.FormatInt(asn, 10)
	case asn == 0:
		return strings.ToLower(string(dynamic))
	}
	return fmt.Sprintf("%s (%d)", strings.ToLower(string(dynamic)), asn)
}

// meshMarker marks a session with another node of the mesh by what that node is to
// this one: "(mesh)" in a full mesh or between reflectors, "(reflector)" to a route
// reflector, "(rr-client)" to a reflector's client.
func meshMarker(role kbgpv1.BGPMeshRole) string {
	switch role {
	case kbgpv1.MeshRolePeer:
		return " (mesh)"
	case kbgpv1.MeshRoleReflector:
		return " (reflector)"
	case kbgpv1.MeshRoleClient:
		return " (rr-client)"
	}
	return ""
}

// peerWhere is the peer's address; for a peer over an interface, the interface and
// the router found on it ("up1 fe80::1"), or the interface alone until one is found.
func peerWhere(p kbgpv1.BGPNodePeerStatus) string {
	if p.Interface == "" {
		return p.PeerAddress
	}
	return strings.TrimSpace(p.Interface + " " + p.PeerAddress)
}

// peerState is the session state, with the reason when kbgp holds the session down,
// e.g. "Idle (MaxPrefixExceeded)".
func peerState(p kbgpv1.BGPNodePeerStatus) string {
	if p.Reason == "" {
		return string(p.PeeringState)
	}
	return fmt.Sprintf("%s (%s)", p.PeeringState, p.Reason)
}

// timers renders the negotiated hold time and keepalive; they exist only while the
// session is established.
func timers(t *kbgpv1.BGPNegotiatedTimers) string {
	if t == nil {
		return "-"
	}
	return fmt.Sprintf("%ds/%ds", t.AppliedHoldTimeSeconds, t.AppliedKeepaliveSeconds)
}

// orDash shows an empty value as "-" so that a column is never blank, which would make
// the line read as if the columns had shifted.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
