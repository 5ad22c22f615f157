// Package operator holds the operator's controllers: thin fetch → render → apply loops
// around the pure internal/render package. One controller writes BGPNodeConfig/<node>
// per node; another writes the conditions of each BGPClusterConfig.
//
// Both write only when content changes, so a resync or an unrelated event costs reads
// from the informer cache and no API writes.
package operator
