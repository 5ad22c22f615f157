package lab

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
)

// routeKey names a route by the neighbor that sent it and its prefix.
type routeKey struct {
	from   netip.Addr
	prefix netip.Prefix
}

// compareRoutes lists every way the received routes differ from the expected ones:
// a route missing, a route nobody expected, or expected communities that differ. An
// empty result means the upstream router has exactly the lab's answer key.
func compareRoutes(want []expectedRoute, got []bgp.ReceivedRoute) []string {
	received := map[routeKey]string{}
	for _, r := range got {
		received[routeKey{r.Neighbor, r.Prefix}] = strings.Join(communities(r.Attributes), " ")
	}
	var problems []string
	for _, w := range want {
		k := routeKey{w.from, w.prefix}
		have, ok := received[k]
		delete(received, k)
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("missing %s from %s", w.prefix, w.from))
		case have != strings.Join(w.communities, " "):
			problems = append(problems, fmt.Sprintf("%s from %s has communities [%s], want [%s]",
				w.prefix, w.from, have, strings.Join(w.communities, " ")))
		}
	}
	for k := range received {
		problems = append(problems, fmt.Sprintf("unexpected %s from %s", k.prefix, k.from))
	}
	slices.Sort(problems)
	return problems
}

// communities formats standard communities as "ASN:value" (or a well-known name) and
// large ones as "a:b:c", standard first, each group in the order received.
func communities(a bgp.PathAttributes) []string {
	var out []string
	for _, c := range a.Communities {
		out = append(out, kbgpv1.FormatStandardCommunity(c))
	}
	for _, c := range a.LargeCommunities {
		out = append(out, string(kbgpv1.LargeCommunityOf([3]uint32{c.GlobalAdmin, c.LocalData1, c.LocalData2})))
	}
	return out
}

// checkNodeConfigs lists what the agents' status says is not as the lab expects: a
// node without status, a router ID resolved another way, a peer not Established.
func checkNodeConfigs(ncs []kbgpv1.BGPNodeConfig) []string {
	byName := map[string]kbgpv1.BGPNodeConfig{}
	for _, nc := range ncs {
		byName[nc.Name] = nc
	}
	var problems []string
	for _, n := range nodes {
		nc, ok := byName[n.name]
		if !ok || len(nc.Status.BGPInstances) == 0 {
			problems = append(problems, fmt.Sprintf("%s: no instance in status yet", n.name))
			continue
		}
		for _, inst := range nc.Status.BGPInstances {
			if inst.RouterIDSource != n.routerIDSource {
				problems = append(problems, fmt.Sprintf("%s: router ID source %q, want %q", n.name, inst.RouterIDSource, n.routerIDSource))
			}
			for _, p := range inst.Peers {
				if p.PeeringState != kbgpv1.PeeringStateEstablished {
					problems = append(problems, fmt.Sprintf("%s: peer %s is %q in status", n.name, p.Name, p.PeeringState))
				}
			}
		}
	}
	return problems
}

// checkSessions lists the upstream router's neighbors that are not Established.
func checkSessions(sessions map[netip.Addr]bgp.SessionState) []string {
	var problems []string
	for _, n := range nodes {
		if s := sessions[n.source]; s != bgp.StateEstablished {
			problems = append(problems, fmt.Sprintf("upstream session with %s (%s) is %q", n.source, n.name, s))
		}
	}
	return problems
}

// sortRoutes orders routes by neighbor, then prefix, as the report prints them.
func sortRoutes(routes []bgp.ReceivedRoute) {
	slices.SortStableFunc(routes, func(a, b bgp.ReceivedRoute) int {
		if c := a.Neighbor.Compare(b.Neighbor); c != 0 {
			return c
		}
		if c := a.Prefix.Addr().Compare(b.Prefix.Addr()); c != 0 {
			return c
		}
		return a.Prefix.Bits() - b.Prefix.Bits()
	})
}
