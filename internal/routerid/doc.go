// Package routerid resolves the BGP router ID of one instance on one node
// (docs/router-id.md). It is pure: the caller fetches the Node, passes its name, addresses and annotations in, and turns the result into
// status, events and metrics. Nothing here reads the API, a clock or a global
// setting, so every rule is table-tested and fuzzed.
//
// Priority: override > configured routerID (IPv4 literal or one whitelisted
// template) > the node's first usable InternalIP IPv4 > FNV-1a hash of the node name
// into routerIDPool.
package routerid
