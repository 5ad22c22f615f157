package kubectlbgp

import (
	"fmt"
	"strconv"
	"strings"

	"kbgp.io/kbgp/internal/adjribapi"
)

// agentRoutesHeader: the received side adds KERNEL, whether each route is in the
// node's kernel; wide adds the attributes a router weighs between paths.
func agentRoutesHeader(side string, wide bool) []string {
	h := []string{"NODE", "INSTANCE", "PEER", "PREFIX", "NEXT-HOP", "COMMUNITIES"}
	if side == adjribapi.Received {
		h = append(h, "KERNEL")
	}
	if wide {
		h = append(h, "LARGE-COMMUNITIES", "LOCAL-PREF", "AS-PATH", "ORIGIN", "MED", "LINK-BANDWIDTH")
	}
	return h
}

// instanceName is how the plugin names an instance everywhere: "65001" or "65001/red".
func instanceName(p adjribapi.Peer) string {
	if p.VRF == "" {
		return strconv.FormatUint(uint64(p.LocalASN), 10)
	}
	return fmt.Sprintf("%d/%s", p.LocalASN, cell(p.VRF))
}

// agentRouteRows lists the agent's answer, one row per route in its order (instance,
// peer, prefix), and one line per peer with its address, session state and count, or
// why its routes could not be read.
func agentRouteRows(r adjribapi.Routes, wide bool) (rows [][]string, counts []string) {
	for _, p := range r.Peers {
		for _, rt := range p.Routes {
			row := []string{cell(r.Node), instanceName(p), cell(p.Name), cell(rt.Prefix), dash(cell(rt.NextHop)), dash(cell(strings.Join(rt.Communities, ",")))}
			if r.Side == adjribapi.Received {
				row = append(row, kernelCell(rt.Kernel))
			}
			if wide {
				path := make([]string, len(rt.ASPath))
				for i, asn := range rt.ASPath {
					path[i] = strconv.FormatUint(uint64(asn), 10)
				}
				row = append(row, dash(cell(strings.Join(rt.LargeCommunities, ","))), optional(rt.LocalPreference), dash(strings.Join(path, " ")),
					dash(cell(rt.Origin)), optional(rt.MED), linkBandwidthCell(rt.LinkBandwidth))
			}
			rows = append(rows, row)
		}
		peer := fmt.Sprintf("%s %s %s (%s, %s)", cell(r.Node), instanceName(p), cell(p.Name), cell(p.Address), dash(cell(p.State)))
		line := fmt.Sprintf("%s: %d %s", peer, len(p.Routes), cell(r.Side))
		if p.Error != "" {
			line = fmt.Sprintf("%s: not read: %s", peer, cell(p.Error))
		}
		counts = append(counts, line)
	}
	return rows, counts
}

// kernelCell is "yes" for a route in the node's kernel, "no (why)" for one that is
// not, "-" when the agent does not say (it installs no routes, or a VRF's peer).
func kernelCell(k *adjribapi.Kernel) string {
	switch {
	case k == nil:
		return "-"
	case k.Installed:
		return "yes"
	case k.Reason == "":
		return "no"
	}
	return fmt.Sprintf("no (%s)", cell(k.Reason))
}

// linkBandwidthCell is the link-bandwidth community as "ASN:bandwidth" in bits per
// second (the unit routers configure and print), "-" when not sent.
func linkBandwidthCell(lb *adjribapi.LinkBandwidth) string {
	if lb == nil {
		return "-"
	}
	bits := uint64(lb.BytesPerSecond) * 8
	for _, u := range []struct {
		unit string
		size uint64
	}{{"Gbit/s", 1e9}, {"Mbit/s", 1e6}, {"kbit/s", 1e3}} {
		if bits >= u.size && bits%u.size == 0 {
			return fmt.Sprintf("%d:%d%s", lb.ASN, bits/u.size, u.unit)
		}
	}
	return fmt.Sprintf("%d:%dbit/s", lb.ASN, bits)
}

// optional is a number, or "-" when not set.
func optional(v *uint32) string {
	if v == nil {
		return "-"
	}
	return strconv.FormatUint(uint64(*v), 10)
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
