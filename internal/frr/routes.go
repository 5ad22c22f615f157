package frr

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
)

// Nexthop is one nexthop of a path.
type Nexthop struct {
	IP  string `json:"ip"`
	AFI string `json:"afi"`
	// Scope is "global" or "link-local" for IPv6 nexthops.
	Scope      string `json:"scope"`
	Accessible bool   `json:"accessible"`
	Used       bool   `json:"used"`
}

// Path is one path of a prefix, from "show bgp AFI unicast json detail".
type Path struct {
	Valid bool `json:"valid"`
	// Best is bestpath.overall.
	Best bool `json:"-"`
	// Stale is set for paths retained during a graceful restart.
	Stale bool `json:"stale"`
	// Multipath is set for the paths besides the best one that FRR uses too (ECMP,
	// with maximum-paths above 1).
	Multipath bool   `json:"multipath"`
	Origin    string `json:"origin"`
	// ASPath is aspath.string ("" for local routes).
	ASPath string `json:"-"`
	// LocalPref is locPrf; nil when the path has no LOCAL_PREF.
	LocalPref *uint32 `json:"locPrf"`
	// MED is "metric"; nil when absent.
	MED              *uint32   `json:"metric"`
	Weight           int       `json:"weight"`
	Communities      []string  `json:"-"`
	LargeCommunities []string  `json:"-"`
	ExtCommunities   string    `json:"-"`
	Nexthops         []Nexthop `json:"nexthops"`
	// PeerID is the address of the neighbor the path came from ("0.0.0.0"
	// or "::" for local routes); PeerRouterID its router ID.
	PeerID       string `json:"-"`
	PeerRouterID string `json:"-"`
}

type pathJSON struct {
	Path
	Prefix   *string          `json:"prefix"`
	Bestpath *json.RawMessage `json:"bestpath"`
	ASPathJ  struct {
		String string `json:"string"`
	} `json:"aspath"`
	Community struct {
		List []string `json:"list"`
	} `json:"community"`
	LargeCommunity struct {
		List []string `json:"list"`
	} `json:"largeCommunity"`
	ExtendedCommunity struct {
		String string `json:"string"`
	} `json:"extendedCommunity"`
	Peer struct {
		PeerID   string `json:"peerId"`
		RouterID string `json:"routerId"`
	} `json:"peer"`
}

// Route is one prefix of the BGP table. The flattened fields describe the
// best path (or the first path when none is best); Paths holds all paths.
type Route struct {
	Prefix           string
	Nexthop          string
	Communities      []string
	LargeCommunities []string
	LocalPref        *uint32
	// MED is the best path's MULTI_EXIT_DISC; nil when absent.
	MED    *uint32
	ASPath string
	Stale  bool
	Valid  bool
	Best   bool
	Paths  []Path
}

// String formats the route's flattened fields for test messages.
func (r Route) String() string {
	lp, med := "-", "-"
	if r.LocalPref != nil {
		lp = strconv.FormatUint(uint64(*r.LocalPref), 10)
	}
	if r.MED != nil {
		med = strconv.FormatUint(uint64(*r.MED), 10)
	}
	return fmt.Sprintf("%s via %s as-path %q local-pref %s med %s communities %v large %v valid=%v best=%v stale=%v (%d paths)",
		r.Prefix, r.Nexthop, r.ASPath, lp, med, r.Communities, r.LargeCommunities, r.Valid, r.Best, r.Stale, len(r.Paths))
}

// HasCommunity reports whether the flattened path carries community c
// ("65000:1", "no-export", ...).
func (r Route) HasCommunity(c string) bool { return slices.Contains(r.Communities, c) }

// HasLargeCommunity reports whether the flattened path carries large
// community c ("65000:1:2").
func (r Route) HasLargeCommunity(c string) bool { return slices.Contains(r.LargeCommunities, c) }

// Routes returns the BGP table of afi ("ipv4" or "ipv6") unicast, keyed by
// prefix, from "show bgp AFI unicast json detail" (FRR 8.4 needs the
// "detail" form for communities; its per-prefix array starts with a
// prefix header object that is skipped here).
func (v VTY) Routes(afi string) (map[string]Route, error) {
	if afi != "ipv4" && afi != "ipv6" {
		return nil, fmt.Errorf("FRR Routes: afi must be ipv4 or ipv6, got %q", afi)
	}
	var table struct {
		Routes map[string][]json.RawMessage `json:"routes"`
	}
	if err := v.JSON("show bgp "+afi+" unicast json detail", &table); err != nil {
		return nil, err
	}
	return DecodeRoutes(table.Routes)
}

// DecodeRoutes decodes the "routes" object of "show bgp AFI unicast json detail".
func DecodeRoutes(routes map[string][]json.RawMessage) (map[string]Route, error) {
	out := make(map[string]Route, len(routes))
	for prefix, elems := range routes {
		r := Route{Prefix: prefix}
		for _, e := range elems {
			var pj pathJSON
			if err := json.Unmarshal(e, &pj); err != nil {
				return nil, fmt.Errorf("decoding path of %s: %w", prefix, err)
			}
			if pj.Prefix != nil && pj.Nexthops == nil && pj.Bestpath == nil {
				continue // prefix header {"prefix","version","advertisedTo"}
			}
			p := pj.Path
			if pj.Bestpath != nil {
				var bp struct {
					Overall bool `json:"overall"`
				}
				if json.Unmarshal(*pj.Bestpath, &bp) == nil {
					p.Best = bp.Overall
				} else {
					var b bool
					if json.Unmarshal(*pj.Bestpath, &b) == nil {
						p.Best = b
					}
				}
			}
			p.ASPath = pj.ASPathJ.String
			p.Communities = pj.Community.List
			p.LargeCommunities = pj.LargeCommunity.List
			p.ExtCommunities = pj.ExtendedCommunity.String
			p.PeerID = pj.Peer.PeerID
			p.PeerRouterID = pj.Peer.RouterID
			r.Paths = append(r.Paths, p)
		}
		if len(r.Paths) == 0 {
			continue
		}
		best := r.Paths[0]
		for _, p := range r.Paths {
			if p.Best {
				best = p
				break
			}
		}
		r.Communities = best.Communities
		r.LargeCommunities = best.LargeCommunities
		r.LocalPref = best.LocalPref
		r.MED = best.MED
		r.ASPath = best.ASPath
		r.Stale = best.Stale
		r.Valid = best.Valid
		r.Best = best.Best
		for _, nh := range best.Nexthops {
			if nh.Scope == "link-local" && len(best.Nexthops) > 1 {
				continue
			}
			r.Nexthop = nh.IP
			break
		}
		out[prefix] = r
	}
	return out, nil
}
