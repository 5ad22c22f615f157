package kubectlbgp

import (
	"fmt"
	"strconv"
	"strings"

	"kbgp.io/kbgp/internal/adjribapi"
)

func agentRoutesHeader(wide bool) []string {
	h := []string{"NODE", "INSTANCE", "PEER", "PREFIX", "NEXT-HOP", "COMMUNITIES"}
	if wide {
		h = append(h, "LARGE-COMMUNITIES", "LOCAL-PREF", "AS-PATH", "ORIGIN")
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
			if wide {
				lp := "-"
				if rt.LocalPreference != nil {
					lp = strconv.FormatUint(uint64(*rt.LocalPreference), 10)
				}
				path := make([]string, len(rt.ASPath))
				for i, asn := range rt.ASPath {
					path[i] = strconv.FormatUint(uint64(asn), 10)
				}
				row = append(row, dash(cell(strings.Join(rt.LargeCommunities, ","))), lp, dash(strings.Join(path, " ")), dash(cell(rt.Origin)))
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

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
