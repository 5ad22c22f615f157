// Package render is the operator's pure core: it decides which BGPClusterConfig and
// which BGPNodeConfigOverride apply to a node, renders that node's BGPNodeConfig, and
// computes the conditions of each BGPClusterConfig. It reads no API and has no clock,
// so everything here is table-tested.
package render
