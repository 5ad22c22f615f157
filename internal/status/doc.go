// Package status builds a BGPNodeConfig's status from what the agent knows: the node
// config it applied, the result of intent.Build, the speaker set's snapshot of running
// speakers and the errors of the last apply. It is pure, so every condition and field is
// table-tested; the agent's writer decides when to send the result.
package status
