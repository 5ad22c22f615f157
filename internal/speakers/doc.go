// Package speakers holds a node's BGP speakers and makes them match a bgp.Desired. It
// diffs the desired state against what it last applied, per instance: an instance whose
// Global changed (ASN, router ID, listener, VRF device) is recreated, because BGP cannot
// change those on a live session; every other change is applied in place, and a peer's
// session is reset only when the change needs a new OPEN (see sessionResetReason and
// docs/session-resets.md). What it last applied — each running peer's configuration
// and export — is the node's one record of what runs; the agent builds on it.
package speakers
