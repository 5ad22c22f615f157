// Package gobgp implements bgp.Router on an embedded GoBGP server. It is the only
// package of kbgp that imports GoBGP, so GoBGP's API churn stays here.
//
// Each speaker is a GoBGP server of its own with no gRPC listener. It imports nothing
// (kbgp only originates routes), and exports through one global policy whose statements
// match a peer (neighbor set) and the prefixes that peer is sent (prefix sets), with a
// default of reject: a peer gets exactly the prefixes the manager gave it.
package gobgp
