package render

import (
	"fmt"
	"slices"
	"strings"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// RouterIDConflict is one router ID shared by several nodes in one instance.
type RouterIDConflict struct {
	LocalASN int64
	RouterID string
	// Nodes share RouterID, sorted.
	Nodes []string
}

// String describes the conflict for conditions and events.
func (c RouterIDConflict) String() string {
	return fmt.Sprintf("router ID %s of instance %d is used by nodes %s", c.RouterID, c.LocalASN, strings.Join(c.Nodes, ", "))
}

// RouterIDConflicts finds router IDs that the agents of different nodes resolved to the
// same value within one instance — hash collisions and duplicated explicit IDs alike.
// BGP peers treat two speakers with one router ID as one (RFC 6286 allows it only
// across ASes, and route reflection and loop detection break), so every one is reported.
// The result is sorted so an unchanged observation compares equal.
func RouterIDConflicts(nodeConfigs []kbgpv1.BGPNodeConfig) []RouterIDConflict {
	type key struct {
		asn int64
		id  string
	}
	users := map[key][]string{}
	for _, nc := range nodeConfigs {
		for _, inst := range nc.Status.BGPInstances {
			if inst.RouterID == "" {
				continue
			}
			k := key{inst.LocalASN, inst.RouterID}
			users[k] = append(users[k], nc.Name)
		}
	}
	var out []RouterIDConflict
	for k, nodes := range users {
		if len(nodes) < 2 {
			continue
		}
		slices.Sort(nodes)
		out = append(out, RouterIDConflict{LocalASN: k.asn, RouterID: k.id, Nodes: nodes})
	}
	slices.SortFunc(out, func(a, b RouterIDConflict) int {
		if a.LocalASN != b.LocalASN {
			return int(a.LocalASN - b.LocalASN)
		}
		return strings.Compare(a.RouterID, b.RouterID)
	})
	return out
}
