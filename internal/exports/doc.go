// Package exports owns what each peer of the node is sent: the Index keeps it per
// source (the node's pod CIDRs and each Service), decides which Service owns an
// address several claim, merges what several sources give one prefix, and turns a
// Service event into the bgp.ExportChanges of the peers it touches. What a Service
// gives a peer is decided by the peer's Rules, which package intent builds without
// side effects from the API objects; the speakers apply the changes
// (speakers.Set.ApplyExports) and keep what each peer was last sent.
package exports
