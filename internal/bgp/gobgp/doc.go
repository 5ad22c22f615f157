// Package gobgp implements bgp.Router on an embedded GoBGP server. It is the only
// package of kbgp that imports GoBGP, so GoBGP's API churn stays here.
//
// Each speaker is a GoBGP server of its own with no gRPC listener. It imports nothing
// (kbgp only originates routes) and originates each prefix some peer exports once,
// without attributes. Every peer has an export policy whose statements match that peer
// (neighbor set) and, one statement per attribute set and family, the prefixes it gets
// with those attributes (prefix sets); each statement sets the attributes and accepts,
// and the default is reject: a peer gets exactly its export, each prefix with the
// attributes meant for it. Which prefixes are originated, and the order of withdrawals,
// policy edits and (re-)originations that makes a change reach every peer, is kept in
// origin.go; callers only say what each peer is sent (bgp.Router).
package gobgp
