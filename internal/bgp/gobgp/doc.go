// Package gobgp implements bgp.Router on an embedded GoBGP server. It is the only
// package of kbgp that imports GoBGP, so GoBGP's API churn stays here.
//
// Each speaker is a GoBGP server of its own with no gRPC listener. It imports nothing
// (kbgp only originates routes) and originates each prefix once, without attributes.
// Every peer has an export policy whose statements match that peer (neighbor set) and,
// one statement per attribute set and family, the prefixes it gets with those
// attributes (prefix sets); each statement sets the attributes and accepts, and the
// default is reject: a peer gets exactly the prefixes the manager gave it, each with
// the attributes meant for it.
package gobgp
