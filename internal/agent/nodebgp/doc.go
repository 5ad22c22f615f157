// Package nodebgp is the node's BGP reconcile: fetch (nodeinput) → router IDs →
// intent.Build → speakers.Set.Apply → status, for the whole node on any configuration
// change, and the hot path of one Service's exports on a Service or EndpointSlice
// event. It reads the agent's own Node, checks the VRF devices peers name, keeps the
// drain clock of a cordoned node and watches only the Secrets peer configs name.
package nodebgp
