package render

import (
	"fmt"
	"strings"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/routerid"
)

// PoolUsage is how full one instance's router-ID pool is.
type PoolUsage struct {
	LocalASN int64
	Pool     string
	routerid.Usage
}

// String describes the usage for conditions, events and logs.
func (u PoolUsage) String() string {
	return fmt.Sprintf("routerIDPool %s of instance %d is %.0f%% used by %d node(s) with hashed router IDs (%d collision(s)); use a larger pool",
		u.Pool, u.LocalASN, 100*u.Fraction(), u.Nodes, u.Collisions())
}

// HighPoolUsage returns the instances of cc whose pool is more than
// routerid.UsageWarnFraction used by the nodes whose agents hashed their router ID, as
// their status says. A pool that does not parse is the schema's business, not this
// warning's.
func HighPoolUsage(cc *kbgpv1.BGPClusterConfig, nodeConfigs []kbgpv1.BGPNodeConfig) []PoolUsage {
	var out []PoolUsage
	for _, inst := range cc.Spec.BGPInstances {
		pool, err := routerid.ParsePool(inst.RouterIDPool)
		if err != nil {
			continue
		}
		var hashed []string
		for _, nc := range nodeConfigs {
			for _, st := range nc.Status.BGPInstances {
				if st.LocalASN == inst.LocalASN && st.RouterIDSource == kbgpv1.RouterIDSourceHash {
					hashed = append(hashed, nc.Name)
				}
			}
		}
		if u := pool.Usage(hashed); u.Fraction() > routerid.UsageWarnFraction {
			out = append(out, PoolUsage{LocalASN: inst.LocalASN, Pool: pool.String(), Usage: u})
		}
	}
	return out
}

func poolUsageMessage(usages []PoolUsage) string {
	parts := make([]string, len(usages))
	for i, u := range usages {
		parts[i] = u.String()
	}
	return strings.Join(parts, "; ")
}
